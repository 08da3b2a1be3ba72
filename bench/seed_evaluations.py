"""Writes evaluation runs straight into a store fabsh created (its schema), for
bench/evaluations.sh: two 1,000-row runs, then 50 runs of 200 questions. Prints the ids of
the two big runs and of the newest run."""
import json, random, sqlite3, sys, uuid
from datetime import datetime, timedelta, timezone

store, workspace, agent = sys.argv[1:4]
db = sqlite3.connect(store)
random.seed(7)
start = datetime(2026, 1, 1, tzinfo=timezone.utc)


def run(n, questions, rate):
    run_id = str(uuid.uuid4())
    rows = []
    for seq in range(questions):
        verdict = "yes" if random.random() < rate else "no"
        rows.append((run_id, seq, f"Question {seq}: how many orders in region {seq % 17}?",
                     str(1000 + seq), str(1000 + seq if verdict == "yes" else seq),
                     verdict, "numbers", "every expected number is in the answer",
                     random.randint(300, 4000), None))
    passed = sum(1 for r in rows if r[5] == "yes")
    summary = {"runs": questions, "passed": passed, "failed": questions - passed,
               "unclear": 0, "errors": 0, "passRate": passed / questions}
    db.execute("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
               (run_id, (start + timedelta(hours=n)).isoformat().replace("+00:00", "Z"),
                workspace, "Demo", agent, "Bench agent", "rules", "/bench/questions.json",
                "0" * 64, 1, 4, f"{n % 5:07x}" + "0" * 57, passed / questions,
                json.dumps(summary)))
    db.executemany("INSERT INTO rows VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
    return run_id


base = run(0, 1000, 0.8)
head = run(1, 1000, 0.75)
latest = None
for n in range(2, 52):
    latest = run(n, 200, 0.6 + 0.3 * random.random())
db.commit()
print(base, head, latest)
