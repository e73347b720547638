"""Selene's fault harness: the real `selene` binary against `selene-ollama-stub` (an Ollama-protocol
server that can be down, slow past the timeout, cut mid-stream, end in an error or answer malformed
JSON), with SIGKILLs of `selene` during processing, during an import and during a streamed chat, and
two `selene` processes on one PostgreSQL with one killed mid-work. Seeded and repeatable:
FAULT_SEED (printed) picks every fault, pause and kill moment. Each scenario runs on SQLite and,
when FAULT_PG_URL is given (scripts/test does), on a fresh PostgreSQL database too.

Invariants checked after each run: every acknowledged capture is there exactly once; every note
ends processed or failed with its reason, none held past its lease; a cut chat answer is stored
marked incomplete (never whole, never in the conversation log) and the conversation goes on; no analysis, embedding, thread membership or task is duplicated
by a retried step; the queue drains after the faults stop."""
import json
import os
import random
import signal
import sqlite3
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid

import pytest

from harness.selene import SELENE, Selene, Stub, chat_stream, sign_in

SEED = int(os.environ.get("FAULT_SEED") or int(time.time()) % 100000)
PG_URL = os.environ.get("FAULT_PG_URL")
PSQL = os.environ.get("FAULT_PSQL", "psql")
DATABASES = ["sqlite"] + (["postgres"] if PG_URL else [])
print(f"\nfault harness: FAULT_SEED={SEED} (set it to repeat this run); databases: {', '.join(DATABASES)}")

WORDS = ("garden roof sourdough marathon budget dentist chimney basil passport cello tomatoes lisbon "
         "spanish dishwasher presentation migration compost picture hooks bike gears router").split()


class Database:
    """Where a scenario's Selene keeps its data: an SQLite file in its data folder, or a fresh
    PostgreSQL database (dropped afterwards)."""

    def __init__(self, kind):
        self.kind = kind
        self.name = f"selene_fault_{uuid.uuid4().hex[:12]}"
        self.url = None
        if kind == "postgres":
            self.psql("CREATE DATABASE " + self.name)
            self.url = PG_URL.rsplit("/", 1)[0] + "/" + self.name

    def psql(self, sql, url=None):
        # Unit and record separators: a note's content may hold newlines and bars.
        out = subprocess.run([PSQL, url or PG_URL, "-At", "-F", "\x1f", "-R", "\x1e", "-v", "ON_ERROR_STOP=1", "-c", sql],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return [record.split("\x1f") for record in out.stdout.rstrip("\n").split("\x1e") if record]

    def env(self):
        return {"SELENE_DATABASE_URL": self.url} if self.url else {}

    def query(self, selene, sql):
        if self.url:
            return self.psql(sql, self.url)
        connection = sqlite3.connect(os.path.join(selene.data, "selene.sqlite"), timeout=30)
        try:
            return [[str(v) for v in row] for row in connection.execute(sql).fetchall()]
        finally:
            connection.close()

    def drop(self):
        if self.kind == "postgres":
            self.psql(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")


@pytest.fixture(params=DATABASES)
def database(request):
    db = Database(request.param)
    yield db
    db.drop()


@pytest.fixture
def stub():
    s = Stub()
    s.up()
    yield s
    s.down()


def selene_env(stub, database, **extra):
    return {"SELENE_LLM_URL": stub.url, "SELENE_CHAT_MODEL": "stub-chat", "SELENE_EMBED_MODEL": "stub-embed",
            "SELENE_LLM_TIMEOUT": "2", "SELENE_RETRY_BACKOFF": "1",
            # The stub's vectors are hashed bags of words: the thresholds these cases were written for.
            "SELENE_THREAD_JOIN": "0.7", "SELENE_THREAD_SEED": "0.7", "SELENE_ASSOCIATION_THRESHOLD": "0.6",
            **database.env(), **extra}


def capture(selene, content, via_webhook, draft=None):
    """Captures a note; answers (id, status) once acknowledged, None when the server didn't answer."""
    try:
        if via_webhook:
            note = selene.api("POST", "/webhook/api/drafts", {"content": content, "uuid": draft or str(uuid.uuid4())}, timeout=30)
        else:
            note = selene.api("POST", "/api/notes", {"content": content}, timeout=30)
        return note["id"]
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def check_invariants(selene, database, acknowledged, bound=90):
    """After the faults: the queue drains; every acknowledged capture is there once; every note
    is done, or failed with its reason; nothing a retried step writes is there twice."""
    try:
        counts = selene.settle(bound)
    except AssertionError as error:
        rows = database.query(selene, "SELECT id, status, lease_owner, lease_until, next_attempt_at, attempts FROM notes "
                                      "WHERE status IN ('pending', 'processing') ORDER BY id LIMIT 5")
        if database.kind == "postgres":
            rows += database.psql("SELECT pid, state, wait_event_type, wait_event, xact_start, client_port, backend_start, left(query, 100) "
                                  f"FROM pg_stat_activity WHERE datname = '{database.name}'")
            rows += [subprocess.run(["ss", "-tnp"], capture_output=True, text=True).stdout[-3000:], f"selene pid {selene.proc.pid}"]
        raise AssertionError(f"{error}\n--- waiting notes in the database: {rows}") from None
    notes = [{"id": int(i), "content": c, "status": st, "lastError": e or None}
             for i, c, st, e in database.query(selene, "SELECT id, content, status, COALESCE(last_error, '') FROM notes")]
    by_content = {}
    for note in notes:
        by_content.setdefault(note["content"], []).append(note["id"])
    for content, note_id in acknowledged.items():
        assert by_content.get(content) == [note_id], f"acknowledged capture {note_id} {content!r}: found {by_content.get(content)}"
    for note in notes:
        assert note["status"] in ("done", "failed"), note
        if note["status"] == "failed":
            assert note.get("lastError"), note
    assert counts["pending"] == 0 and counts["processing"] == 0
    held = database.query(selene, "SELECT COUNT(*) FROM notes WHERE lease_owner IS NOT NULL")
    assert held == [["0"]], f"notes still held by a worker: {held}"
    for table, key in (("processed_notes", "note_id"), ("note_embeddings", "note_id"), ("thread_notes", "note_id")):
        twice = database.query(selene, f"SELECT {key}, COUNT(*) FROM {table} GROUP BY {key} HAVING COUNT(*) > 1")
        assert twice == [], f"{table}: written twice for {twice}"
    tasks = database.query(selene, "SELECT thread_id, title, COUNT(*) FROM thread_tasks GROUP BY thread_id, title HAVING COUNT(*) > 1")
    assert tasks == [], f"tasks duplicated: {tasks}"
    done = [n for n in notes if n["status"] == "done"]
    analysed = database.query(selene, "SELECT COUNT(*) FROM processed_notes")
    assert analysed == [[str(len(done))]], f"{analysed} analyses for {len(done)} processed notes"
    if database.kind == "sqlite":
        assert database.query(selene, "PRAGMA integrity_check") == [["ok"]]
    return notes


def test_model_server_faults_lose_and_duplicate_nothing(stub, database):
    """Captures (some resent from Drafts with the same uuid) while the model server goes down and
    comes back, answers slower than the timeout, fails, cuts streams and writes malformed JSON."""
    rng = random.Random(f"{SEED}-model-{database.kind}")
    selene = Selene(selene_env(stub, database)).start()
    acknowledged, drafts, schedule = {}, [], []
    try:
        for step in range(70):
            roll = rng.random()
            if roll < 0.55:
                content = f"Note {SEED}-{step}: {' '.join(rng.sample(WORDS, 6))}"
                via_webhook = rng.random() < 0.5
                draft = str(uuid.uuid4())
                note_id = capture(selene, content, via_webhook, draft)
                assert note_id is not None, "capture is answered whatever the model server does"
                acknowledged[content] = note_id
                if via_webhook:
                    drafts.append((draft, content, note_id))
            elif roll < 0.65 and drafts:
                draft, content, note_id = rng.choice(drafts)
                assert capture(selene, content, True, draft) == note_id, "a draft sent again is the same note"
                schedule.append("resend")
            else:
                fault = rng.choice(["down", "up", "slow", "serverError", "cutStream", "streamError", "invalidJSON", "none"])
                schedule.append(fault)
                if fault == "down":
                    stub.down()
                elif fault == "up":
                    stub.up()
                elif stub.is_up:
                    stub.fault(fault, times=rng.randint(1, 4), slow=3 if fault == "slow" else None)
            time.sleep(rng.uniform(0, 0.25))
        print(f"\n[{database.kind}] seed {SEED}: {len(acknowledged)} captures; faults {schedule}")
        stub.up()
        stub.fault("none")
        notes = check_invariants(selene, database, acknowledged)
        # The queue is alive: a new note is processed at once.
        late = capture(selene, f"After the faults {SEED}: {' '.join(rng.sample(WORDS, 5))}", False)
        assert selene.settle(30) and selene.api("GET", f"/api/notes/{late}")["status"] == "done"
        print(f"[{database.kind}] {sum(n['status'] == 'done' for n in notes)} processed, {sum(n['status'] == 'failed' for n in notes)} failed with a reason")
    finally:
        selene.stop()


def test_kill_during_processing_and_captures(stub, database):
    """SIGKILL while notes are being analysed and while captures arrive; restarted, the new
    process takes the killed one's notes back at once and loses none of the acknowledged ones."""
    rng = random.Random(f"{SEED}-kill-{database.kind}")
    stub.fault("slow", slow=0.4)
    selene = Selene(selene_env(stub, database, SELENE_LLM_TIMEOUT="5")).start()
    acknowledged = {}
    try:
        for round_ in range(3):
            lock = threading.Lock()
            stop = threading.Event()

            def capture_loop(worker):
                words = random.Random(f"{SEED}-kill-{database.kind}-{round_}-{worker}")
                i = 0
                while not stop.is_set() and i < 60:
                    content = f"Round {round_} writer {worker} note {i} ({SEED}): {' '.join(words.sample(WORDS, 5))}"
                    note_id = capture(selene, content, i % 2 == 0)
                    if note_id is None:
                        return
                    with lock:
                        acknowledged[content] = note_id
                    i += 1
                    time.sleep(words.uniform(0, 0.03))

            writers = [threading.Thread(target=capture_loop, args=(w,)) for w in range(2)]
            for w in writers:
                w.start()
            time.sleep(rng.uniform(0.8, 2.5))
            selene.kill()
            stop.set()
            for w in writers:
                w.join()
            held = database.query(selene, "SELECT COUNT(*) FROM notes WHERE status = 'processing'")
            print(f"\n[{database.kind}] round {round_}: killed with {len(acknowledged)} captures acknowledged, {held[0][0]} notes mid-processing")
            selene.start()
        stub.fault("none")
        started = time.time()
        check_invariants(selene, database, acknowledged, bound=60)
        print(f"[{database.kind}] drained {time.time() - started:.1f} s after the last restart (the lease is 300 s)")
    finally:
        selene.stop()


def test_kill_during_import(stub, database, tmp_path):
    """SIGKILL `selene import` part-way; run it again: every file is a note exactly once."""
    rng = random.Random(f"{SEED}-import-{database.kind}")
    folder = tmp_path / "vault"
    folder.mkdir()
    contents = []
    for i in range(300):
        text = f"Imported note {i} ({SEED}): {' '.join(rng.sample(WORDS, 8))}"
        (folder / f"note-{i:03}.md").write_text(f"# Note {i}\n\n{text}\n")
        contents.append(text)
    selene = Selene(selene_env(stub, database, SELENE_PROCESSING="off"))
    try:
        selene.start()
        selene.terminate()
        env = selene.env
        first = subprocess.Popen([SELENE, "import", str(folder)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        time.sleep(rng.uniform(0.3, 1.5))
        first.send_signal(signal.SIGKILL)
        first.wait()
        partial = database.query(selene, "SELECT COUNT(*) FROM notes")[0][0]
        again = subprocess.run([SELENE, "import", str(folder)], env=env, capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stdout + again.stderr
        print(f"\n[{database.kind}] import killed after {partial} notes; run again: {again.stdout.strip().splitlines()[-1]}")
        selene.start()
        stored = [content for (content,) in database.query(selene, "SELECT content FROM notes")]
        assert len(stored) == len(contents), f"{len(stored)} notes for {len(contents)} files"
        for text in contents:
            assert sum(text in content for content in stored) == 1, text
    finally:
        selene.stop()


def test_kill_during_streamed_chat(stub, database):
    """SIGKILL while an answer streams: what was shown is stored marked incomplete, never as a
    whole answer nor in the conversation log; the database is intact and the conversation goes
    on after the restart."""
    rng = random.Random(f"{SEED}-chat-{database.kind}")
    selene = Selene(selene_env(stub, database, SELENE_LLM_TIMEOUT="10")).start()
    try:
        for text in ["The roofer says the chimney flashing must be replaced before winter",
                     "Second quote for the chimney flashing: cheaper, starts in two weeks"]:
            capture(selene, text, False)
        selene.settle(30)
        stub.fault("none", chunk_delay=0.3)
        opener, csrf = sign_in(selene.base)
        session = str(uuid.uuid4())
        pieces = rng.randint(1, 3)
        seen = {"delta": 0}

        def kill_mid_answer(name):
            if name == "delta":
                seen["delta"] += 1
                if seen["delta"] == pieces:
                    selene.kill()

        events = chat_stream(opener, csrf, selene.base, session, "What did the roofer say about the chimney?", kill_mid_answer)
        assert seen["delta"] == pieces and "done" not in [name for name, _ in events], events
        selene.start()
        stub.fault("none", chunk_delay=0)
        # What was shown before the kill is kept, marked as cut off: the first piece is saved
        # before it is sent, so a kill after any piece leaves a marked partial answer.
        shown = "".join(json.loads(data)["text"] for name, data in events if name == "delta")
        stored = selene.api("GET", f"/api/sessions/{session}")["messages"]
        assert [m["role"] for m in stored] == ["user", "assistant"], stored
        cut = stored[1]
        assert cut.get("incomplete") is True, f"a cut answer was stored as whole: {cut}"
        first = json.loads(next(data for name, data in events if name == "delta"))["text"].strip()
        assert cut["content"].startswith(first) and len(cut["content"]) <= len(shown.strip()) + 40, (cut, shown)
        # The conversation log (what memories are learned from) has no assistant message.
        logged = selene.api("GET", f"/api/sessions/{session}/messages?limit=50")["messages"]
        assert [m["role"] for m in logged] == ["user"], f"a cut answer was logged: {logged}"
        # The conversation goes on in the same session.
        opener, csrf = sign_in(selene.base)
        events = chat_stream(opener, csrf, selene.base, session, "And the second quote?")
        assert events[-1][0] == "done", events
        messages = selene.api("GET", f"/api/sessions/{session}/messages?limit=50")["messages"]
        assert [m["role"] for m in messages] == ["user", "user", "assistant"] and messages[-1]["content"].strip()
        stored = selene.api("GET", f"/api/sessions/{session}")["messages"]
        assert [m.get("incomplete", False) for m in stored] == [False, True, False, False], stored
        if database.kind == "sqlite":
            assert database.query(selene, "PRAGMA integrity_check") == [["ok"]]
        print(f"\n[{database.kind}] killed after {pieces} piece(s) of the answer; after the restart: {[m['role'] for m in messages]}")
    finally:
        selene.stop()


@pytest.mark.skipif(not PG_URL, reason="two processes share a database only on PostgreSQL (FAULT_PG_URL)")
def test_two_processes_on_postgres_one_killed(stub):
    """Two `selene` processes work one queue on PostgreSQL; one is killed mid-work. The other
    takes its notes back and every note is processed exactly once."""
    rng = random.Random(f"{SEED}-two")
    database = Database("postgres")
    stub.fault("slow", slow=0.3)
    first = Selene(selene_env(stub, database, SELENE_LLM_TIMEOUT="5")).start()
    second = Selene(selene_env(stub, database, SELENE_LLM_TIMEOUT="5", SELENE_AUTO_MIGRATE="false")).start()
    acknowledged = {}
    try:
        for i in range(30):
            content = f"Shared queue note {i} ({SEED}): {' '.join(rng.sample(WORDS, 5))}"
            acknowledged[content] = capture(first if i % 2 else second, content, i % 3 == 0)
        time.sleep(rng.uniform(0.5, 2.0))
        first.kill()
        mid = database.query(second, "SELECT COUNT(*) FROM notes WHERE status = 'processing'")[0][0]
        stub.fault("none")
        started = time.time()
        check_invariants(second, database, acknowledged, bound=60)
        owners = database.query(second, "SELECT COUNT(*) FROM notes WHERE status = 'done'")
        print(f"\n[postgres] two processes: one killed with {mid} notes mid-processing; the other drained all "
              f"{owners[0][0]} in {time.time() - started:.1f} s")
    finally:
        first.stop()
        second.stop()
        database.drop()
