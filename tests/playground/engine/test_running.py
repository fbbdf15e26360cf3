import random

from playground.engine.running import BUCKETS, RunningContext, bucket, common_prefix
from playground.engine.tokens import TokenCounter
from playground.engine.validity import check_calls
from policies.messages import STUB
from tests.builders import tool_loop, user


def test_common_prefix_by_identity():
    a = tool_loop(5)
    assert common_prefix(a, a) == 10
    assert common_prefix(a, a[:4]) == 4
    b = [*a[:3], user("changed"), *a[4:]]
    assert common_prefix(a, b) == 3
    assert common_prefix(a, a[1:]) == 0


def test_figures_after_random_rewrites_equal_a_full_recount():
    rng = random.Random(3)
    counter = TokenCounter("gpt-4")
    running = RunningContext(counter)
    pool = tool_loop(40, size=50)
    for message in pool[:20]:
        running.append(message)
    for _ in range(200):
        items = list(running.items)
        choice = rng.random()
        if choice < 0.3 and items:
            i = rng.randrange(len(items))
            items[i] = items[i].replace(content="[stub]", kind=STUB)
        elif choice < 0.5:
            items = items[rng.randrange(len(items) + 1) :]
        elif choice < 0.7:
            rng.shuffle(items)
        else:
            items.append(rng.choice(pool))
        running.replace(items)
        assert running.tokens == counter.total(items)
        assert sum(running.bucket_counts) == len(items)
        assert running.by_bucket() == {
            name: sum(counter.count(m) for m in items if bucket(m) == name) for name in BUCKETS
        }
        assert running.message_tokens == [counter.count(m) for m in items]
        assert running.count_of("stub") == sum(m.kind == STUB for m in items)
        assert running.violations() == check_calls(items)
