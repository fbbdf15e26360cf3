"""The JSON the command line writes: what json.dump would write, one list item per line."""

import io
import json

import numpy as np

from playground.cli.common import write_json


def test_written_json_reads_back_as_the_document_with_each_list_item_on_one_line():
    document = {
        "session": {"name": 'a "quoted" name', "messages": 3},
        "turns": [{"turn": 1, "lost": ["ünïcode", "x\ny"]}, {"turn": 2, "lost": []}],
        "by_key": {2: "two", True: "yes", None: "nothing", 1.5: "half"},
        "figure": np.int64(7),
        "empty": {},
        "none": [],
    }
    out = io.StringIO()
    write_json(out, document)
    text = out.getvalue()
    expected = json.loads(json.dumps(document, default=lambda v: v.item()))
    assert json.loads(text) == expected
    lines = text.splitlines()
    assert '    {"turn": 1, "lost": ["\\u00fcn\\u00efcode", "x\\ny"]},' in lines
    assert '    {"turn": 2, "lost": []}' in lines
    assert '  "by_key": {' in lines and '    "2": "two",' in lines
