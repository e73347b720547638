"""Selene against real models (scripts/real-model starts them): llama.cpp's llama-server serving
SmolLM2-135M-Instruct over the OpenAI protocol for chat and analysis, and all-MiniLM-L6-v2 for
embeddings.

A 135M model writes poor words, so these tests assert what must hold whatever the words: every
note ends processed (with an analysis inside its enums and ranges, its concepts distinct and none
copied from the prompt) or failed with its reason, none stuck, most valid at the first try;
answers stream to the end, are stored in their session and cite only notes that were in the
prompt; no template token reaches an answer, a stored message, an analysis or the briefing; the
briefing is the model's; answers cut short are refused, never stored as defaults. And what a
person checks first: a direct question about one note comes back citing that note (the model's
citation or Selene's) and holding its fact as the person reads it (not the day the note was
written), and no citation points at a note about something else. Between Selene and
llama-server sits a recording proxy, so the tests can see exactly what the model was shown."""
import http.client
import json
import os
import re
import subprocess
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from harness.selene import SELENE, TOKEN, Selene, api, chat_stream, settle, sign_in

LLM_URL = os.environ.get("SELENE_REAL_LLM_URL")
EMBED_URL = os.environ.get("SELENE_REAL_EMBED_URL")
# Processing a note is an analysis (~3-8 s on 2 cores) and an embedding; the bound leaves room for retries.
PROCESS_BOUND = float(os.environ.get("SELENE_REAL_PROCESS_BOUND", "900"))
CHAT_MODEL = os.environ.get("SELENE_REAL_CHAT_MODEL", "smollm2-135m")
# Chat templates' own tokens (ChatML, Gemma, Llama, Mistral): none may reach a person.
TEMPLATE_TOKEN = re.compile(r"<\|[A-Za-z_][A-Za-z0-9_]*\|>|<(?:start|end)_of_[a-z_]+>|</s>|<s>|<(?:bos|eos|pad)>|\[/?INST\]")
# The words of the analysis prompt's instructions that a small model copies as concepts.
INSTRUCTION_WORDS = {"concept", "concepts", "theme", "themes", "primary", "secondary", "sentiment", "score", "emotional", "tone",
                     "level", "type", "actionability", "actionable", "someday", "none", "confidence", "noun", "phrase", "json",
                     "schema", "up", "to", "5", "3", "note", "positive", "neutral", "negative", "mixed", "low", "medium", "high",
                     "idea", "task", "reflection", "question", "reference", "log"}

pytestmark = pytest.mark.skipif(not LLM_URL or not EMBED_URL, reason="run through scripts/real-model, which starts the models")

NOTES = [
    ("Roof", "The roofer came by: the flashing around the chimney is rusted through and needs replacing before winter. Quote was 1,800."),
    ("", "Call the plumber about the kitchen sink, it drips all night."),
    ("Sourdough", "Fed the starter at 8pm, doubled by morning. Next loaf: 75% hydration, longer cold proof."),
    ("Marathon training", "Long run of 24 km today, knee felt fine until the last hill. Need new shoes soon."),
    ("", "Idea: a small app that reminds me to water the balcony plants when it hasn't rained for three days."),
    ("Book notes", "Finished 'The Overstory'. The chapter about the chestnut tree stayed with me; trees talking through roots."),
    ("", "Feeling anxious about the presentation on Thursday. I haven't rehearsed the demo at all."),
    ("Anna's birthday", "Anna turns 40 on the 12th of May. She mentioned wanting a pottery class, maybe book one for two."),
    ("Budget", "Groceries were 420 this month, up from 350. Eating out is the real leak: 260."),
    ("", "Why does the dishwasher leave a white film on glasses? Try vinegar in the rinse aid slot."),
    ("Garden", "Planted tomatoes and basil in the raised bed. Compost from the bin is finally ready."),
    ("Meeting with Tom", "Tom wants the migration done by March. We agreed to freeze features for two weeks in February."),
    ("", "Dentist appointment moved to Tuesday 3pm."),
    ("Reading list", "Next: 'Thinking in Systems' by Donella Meadows, then something lighter — maybe Pratchett."),
    ("Sleep", "Slept badly again. Coffee after 2pm seems to be the pattern; stopping it for a week to see."),
    ("", "Grateful for the long walk with Mum along the river today, she told stories about her first job."),
    ("Car", "Car service due at 60,000 km, currently 58,400. Book the garage for next month."),
    ("Work idea", "We could cache the search index per user and rebuild it nightly instead of on every write."),
    ("", "Bought the wrong size of picture hooks again. Measure first next time: 3 mm."),
    ("Holiday", "Thinking about Lisbon in October. Flights are cheaper midweek; need to ask Sam about dates."),
    ("", "The new neighbour plays the cello in the evenings. Lovely, actually."),
    ("Roof again", "Second quote for the chimney flashing: 1,450, can start in two weeks. Leaning towards this one."),
    ("Learning Spanish", "Ten days in a row on the Spanish lessons. The subjunctive still makes no sense to me."),
    ("", "Remember to renew the passport before the Lisbon trip, it expires in August."),
    ("Health", "Blood pressure 128/82 at the pharmacy. Doctor said to check again in three months."),
    ("", "What if the team retro used a shared doc instead of sticky notes? People could add things during the sprint."),
    ("Sourdough 2", "Second loaf with the longer cold proof: much better crumb, slightly sour. Keep this schedule."),
    ("", "Feeling proud: fixed the bike's gears myself with a video and a 5 mm hex key."),
    ("Kids' school", "Parents' evening on the 14th. Ask about the maths club and the reading scheme."),
    ("", "Note to self: the wifi password for the cabin is on the back of the router."),
]
ENUMS = {
    "sentiment": {"positive", "neutral", "negative", "mixed"},
    "energyLevel": {"low", "medium", "high"},
    "noteType": {"idea", "task", "reflection", "question", "reference", "log"},
    "actionability": {"actionable", "someday", "none"},
}



class RecordingProxy:
    """Forwards to the model server as it answers (server-sent events passed on as they come)
    and keeps every chat request's messages."""

    def __init__(self, upstream):
        self.upstream = urllib.parse.urlsplit(upstream)
        self.chats = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def forward(self, body):
                connection = http.client.HTTPConnection(proxy.upstream.hostname, proxy.upstream.port, timeout=600)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length", "connection")}
                connection.request(self.command, self.path, body=body, headers=headers)
                response = connection.getresponse()
                self.send_response(response.status)
                for key, value in response.getheaders():
                    if key.lower() not in ("content-length", "transfer-encoding", "connection"):
                        self.send_header(key, value)
                self.send_header("Transfer-Encoding", "chunked")
                self.send_header("Connection", "close")
                self.end_headers()
                while True:
                    chunk = response.read1(65536)
                    if not chunk:
                        break
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                connection.close()

            def do_GET(self):
                self.forward(None)

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path.endswith("/chat/completions"):
                    proxy.chats.append(json.loads(body))
                self.forward(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"


def start_selene(proxy_url, extra=None):
    """The real selene on SQLite, its model server behind the recording proxy."""
    return Selene({"SELENE_LLM_PROVIDER": "openai", "SELENE_LLM_URL": proxy_url,
                   "SELENE_CHAT_MODEL": CHAT_MODEL, "SELENE_EMBED_URL": EMBED_URL,
                   "SELENE_EMBED_MODEL": os.environ.get("SELENE_REAL_EMBED_MODEL", "all-minilm"),
                   "SELENE_LLM_TIMEOUT": "300", "SELENE_NUM_CTX": "8192", "SELENE_MAX_TOKENS": "512", **(extra or {})}).start()


@pytest.fixture(scope="module")
def selene():
    proxy = RecordingProxy(LLM_URL)
    server = start_selene(proxy.url)
    yield server.base, proxy
    server.stop()
    proxy.server.shutdown()


def check_analysis(note):
    """A processed note carries its analysis flattened into the note's own object."""
    a = note
    assert a.get("primaryTheme") is not None, note
    for key, allowed in ENUMS.items():
        assert a[key] in allowed, (key, a[key])
    assert -1 <= a["sentimentScore"] <= 1
    assert 1 <= len(a["primaryTheme"].strip()) <= 80
    assert len(a["secondaryThemes"]) <= 3 and all(0 < len(t) <= 80 for t in a["secondaryThemes"])
    assert len(a["concepts"]) <= 5 and all(0 <= c["confidence"] <= 1 and 0 < len(c["name"]) <= 80 for c in a["concepts"])
    names = [c["name"].lower() for c in a["concepts"]]
    assert len(names) == len(set(names)), f"repeated concepts: {names}"
    # Copied from the prompt: made only of the instructions' words, which the note itself doesn't have
    # ("Idea: a small app…" may well be about an idea).
    own = set(re.findall(r"[a-z0-9]+", ((note.get("title") or "") + " " + note["content"]).lower()))
    for phrase in names + [t.lower() for t in a["secondaryThemes"]] + [a["primaryTheme"].lower()]:
        words = [w for w in re.findall(r"[a-z0-9]+", phrase) if w not in {"a", "an", "the", "of", "and", "or"}]
        copied = words and all(w in INSTRUCTION_WORDS for w in words) and not all(w in own for w in words)
        assert not copied, f"copied from the prompt: {phrase!r} (note: {note['content'][:60]!r})"
    assert len(a["emotionalTone"]) <= 40
    # The people and places it names (#85): lists of at most five distinct names, never the writer.
    for key in ("people", "places"):
        assert isinstance(a.get(key), list) and len(a[key]) <= 5, (key, a.get(key))
        assert all(0 < len(n) <= 80 for n in a[key]) and len({n.lower() for n in a[key]}) == len(a[key]), (key, a[key])
    assert not {n.lower() for n in a["people"]} & {"i", "me", "the writer", "writer"}, a["people"]
    for text in [a["primaryTheme"], a["emotionalTone"], *a["secondaryThemes"], *[c["name"] for c in a["concepts"]], *a["people"], *a["places"]]:
        assert not TEMPLATE_TOKEN.search(text), f"template token in an analysis: {text!r}"


def test_thirty_notes_end_processed_or_failed_with_a_reason(selene):
    base, proxy = selene
    started = time.time()
    for i, (title, content) in enumerate(NOTES):
        if i % 3 == 0:
            api(base, "POST", "/webhook/api/drafts", {"content": content, "title": title or None, "uuid": str(uuid.uuid4())})
        else:
            api(base, "POST", "/api/notes", {"content": content, "title": title or None})
    counts = settle(base, PROCESS_BOUND)
    took = time.time() - started
    notes = api(base, "GET", "/api/notes?limit=500")["notes"]
    assert len(notes) == 30 and counts["done"] + counts["failed"] == 30
    done = [n for n in notes if n["status"] == "done"]
    for note in notes:
        if note["status"] == "failed":
            assert note.get("lastError"), note
        else:
            check_analysis(note)
            assert note["embeddingModel"] == "all-minilm" and note["processedBy"] == CHAT_MODEL
    # The model answered under a schema: most analyses are valid however poor their words.
    assert len(done) >= 24, [(n["id"], n.get("lastError")) for n in notes if n["status"] == "failed"]
    analyses = [c for c in proxy.chats if c.get("response_format") and "analyse one personal note" in prompt_text(c)]
    assert all(c["response_format"]["type"] == "json_schema" for c in analyses)
    # A retry is asked with a temperature above 0; each retry is at most one note not valid at its first try.
    retries = [c for c in analyses if (c.get("temperature") or 0) > 0]
    first_try_valid = 30 - len(retries) - counts["failed"]
    # 8 of 10 (#46). With the prompt naming no counts or enum values and a repetition penalty, two runs on
    # 2026-11-26 measured 27 and 26 (the prompt before: 21 and 22).
    assert first_try_valid >= 24, f"{first_try_valid} of 30 analyses valid at the first try ({len(retries)} retries)"
    print(f"\n30 notes: {counts['done']} processed, {counts['failed']} failed, in {took:.0f} s; at least {first_try_valid} valid at the first try; "
          f"{len(analyses)} analysis requests; e.g. {done[0].get('title') or done[0]['content'][:30]!r} → "
          f"{json.dumps({k: done[0].get(k) for k in ('primaryTheme', 'noteType', 'sentiment', 'actionability', 'concepts')})[:300]}")
    # Real embeddings: the two notes about the same chimney find each other.
    roof = next(n for n in notes if n.get("title") == "Roof")
    again = next(n for n in notes if n.get("title") == "Roof again")
    if roof["status"] == "done" and again["status"] == "done":
        related = api(base, "GET", f"/api/notes/{roof['id']}/related?limit=3")
        assert again["id"] in [r["note"]["id"] for r in related["results"]], related


def prompt_text(chat_request):
    """Everything a chat request showed the model (its context notes are lines `[n] title — date — text`)."""
    return "\n".join(m["content"] for m in chat_request["messages"])


def test_chat_streams_through_the_web_app_and_cites_only_notes_it_was_shown(selene):
    base, proxy = selene
    settle(base, PROCESS_BOUND)
    opener, csrf = sign_in(base)
    session = str(uuid.uuid4())
    before = len(proxy.chats)
    started = time.time()
    first_piece = []

    def timed(name):
        if name == "delta" and not first_piece:
            first_piece.append(time.time() - started)

    events = chat_stream(opener, csrf, base, session, "What did the roofer say about the chimney?", timed)
    names = [name for name, _ in events]
    assert names[:2] == ["progress", "progress"] and names[-1] == "done", names
    assert "delta" in names, "the answer arrived in pieces"
    done = json.loads(events[-1][1])
    assert "html" in done, done
    messages = api(base, "GET", f"/api/sessions/{session}/messages?limit=10")["messages"]
    assert [m["role"] for m in messages][-2:] == ["user", "assistant"] and messages[-1]["content"].strip()
    shown = prompt_text(proxy.chats[before])
    for note_id in messages[-1].get("citedNoteIds") or []:
        note = api(base, "GET", f"/api/notes/{note_id}")
        assert (note.get("title") or note["content"][:40]) in shown, f"note {note_id} was cited but not shown to the model"
    print(f"\nweb chat: first piece after {first_piece[0]:.1f} s, whole answer after {time.time() - started:.1f} s, "
          f"cited {messages[-1].get('citedNoteIds')}: {ends(messages[-1]['content'])}")


def test_chat_through_the_terminal_client(selene):
    base, proxy = selene
    settle(base, PROCESS_BOUND)
    before = len(proxy.chats)
    result = subprocess.run([SELENE, "chat", "--json", "--server", base, "--token", TOKEN, "When is Anna's birthday?"],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["answer"] and answer["answer"].strip(), answer
    assert set(answer["citations"]) <= set(answer["notes"]), "every citation is a note the answer was given"
    session = api(base, "GET", f"/api/sessions/{answer['sessionId']}/messages?limit=10")["messages"]
    assert session[-1]["role"] == "assistant" and session[-1]["content"].strip()
    assert len(proxy.chats) > before
    # What a person checks first: the answer cites the note that holds the birthday.
    cited = [note_label(api(base, "GET", f"/api/notes/{i}")) for i in answer["citations"]]
    print(f"\nselene chat: {ends(answer['answer'])} cites {[label[:24] for label in cited]}")
    assert any(label.startswith("Anna's birthday") for label in cited), f"the answer doesn't cite Anna's birthday note: {answer['answer']!r}"


# Direct questions a person would ask, each answered by one note (its title, or its first words),
# with the words that say what the answer is about (a citation must point at a note that has one)
# and the words of the answer itself, as the note has them (what a person reads the answer for).
QUESTIONS = [
    ("How much was the second quote for the chimney flashing?", "Roof again", {"chimney", "roof", "flashing", "quote"}, {"1", "450"}),
    ("When does Anna turn 40?", "Anna's birthday", {"anna", "birthday"}, {"12", "may"}),
    ("How long was my long run in marathon training?", "Marathon training", {"run", "km", "marathon", "knee"}, {"24", "km"}),
    ("What hydration do I want for the next sourdough loaf?", "Sourdough", {"sourdough", "loaf", "starter", "hydration", "proof"}, {"75"}),
    ("When is my dentist appointment?", "Dentist appointment moved", {"dentist"}, {"tuesday", "3"}),
    ("What was my blood pressure at the pharmacy?", "Health", {"blood", "pressure", "pharmacy", "doctor"}, {"128", "82"}),
    ("How much did I spend on groceries this month?", "Budget", {"groceries", "budget", "eating"}, {"420"}),
    ("When is the car service due?", "Car", {"car", "service", "garage"}, {"60", "000"}),
    ("Where is the wifi password for the cabin?", "Note to self: the wifi", {"wifi", "cabin", "router", "password"}, {"router"}),
    ("What size of picture hooks do I need?", "Bought the wrong size of picture hooks", {"hooks", "picture"}, {"3", "mm"}),
]


# 8 of 10. On 2026-11-27, 9: the sourdough answer listed the other loaf's note and no figure; two
# of the nine (Anna's birthday, the dentist) were Selene's quote in place of an answer whose every
# figure no note held ("Anna's birthday: 27 Nov 2026", the day the note was written, before).
# Later that day, with an answer without a figure quoted too (`quotesMissingFigure`), 10 and 10.
HOLDS_FACT = 8


def note_label(note):
    return note.get("title") or note["content"]


def ends(text, each=200):
    """An answer as the log shows it: whole, or its beginning and its end (a quote comes last)."""
    return repr(text) if len(text) <= 2 * each else f"{text[:each]!r} … {text[-each:]!r}"


def test_direct_questions_cite_the_note_that_answers_them(selene):
    base, proxy = selene
    settle(base, PROCESS_BOUND)
    cited_right = holds_fact = 0
    lines = []
    for question, answering, subject, fact in QUESTIONS:
        result = subprocess.run([SELENE, "chat", "--json", "--server", base, "--token", TOKEN, question],
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr
        answer = json.loads(result.stdout)
        text = answer["answer"] or ""
        assert text.strip(), answer
        assert not TEMPLATE_TOKEN.search(text), f"template token in an answer: {text!r}"
        cited = [api(base, "GET", f"/api/notes/{i}") for i in answer["citations"]]
        assert set(answer["seleneCitations"]) <= set(answer["citations"])
        for note in cited:
            words = set(re.findall(r"[a-z0-9]+", (note.get("title") or "").lower() + " " + note["content"].lower()))
            assert words & subject, f"{question!r}: cited {note_label(note)!r}, which is about something else; answer {text!r}"
        right = any(note_label(n).startswith(answering) for n in cited)
        cited_right += right
        # The answer as a person reads it holds the note's fact ("24 km", not the day the note was
        # written): the model's words, or the note's sentence Selene quotes under or instead of them.
        held = fact <= set(re.findall(r"[a-z]+|[0-9]+", text.lower()))
        holds_fact += held
        by = "Selene" if any(note_label(n).startswith(answering) and n["id"] in answer["seleneCitations"] for n in cited) else "model"
        lines.append(f"{'✓' if right else '✗'}{'✓' if held else '✗'} {question} → {ends(text)} cites {[note_label(n)[:24] for n in cited]}"
                     + (f" ({by})" if right else ""))
    print("\n" + "\n".join(lines))
    # 9 of 10 (#46). SmolLM2-135M at temperature 0.2 gave 9, 9 and 7 with the model's and Selene's
    # citations alone (2026-11-26/27: the misses invented a figure or looped, holding nothing to cite);
    # with the note about the question quoted under an answer that doesn't cite it (AnswerPassage),
    # 10 of 10. A miss now needs retrieval to leave the note out, or a tie between two notes.
    assert cited_right >= 9, f"{cited_right} of 10 direct questions cite the note that answers them"
    assert holds_fact >= HOLDS_FACT, f"{holds_fact} of 10 answers hold the fact of the note that answers them"


def sentences(text):
    """A text's sentences, line by line (split after ".", "!" or "?" and a space, a citation marker kept)."""
    return [s.strip() for line in text.split("\n") for s in re.split(r"(?<=[.!?])\s+|(?<=\])\s+(?=[A-Z])", line) if s.strip()]


def number_blind(sentence):
    """A sentence with its numbers blanked, citation markers, case and end punctuation aside; None
    without a number or with too few letters to be a loop's unit (AnswerTidy's rule)."""
    key = " ".join(re.sub(r"\[\d{1,3}(?:,\s*\d{1,3})*\]", " ", sentence).lower().split())
    if not re.search(r"\d", key):
        return None
    blind = re.sub(r"\d+(?:[.,:]\d+)*", "#", key).strip(" .!?;:,")
    return blind if sum(c.isalpha() for c in blind) >= 8 else None


def test_no_template_token_reaches_a_stored_message(selene):
    base, _ = selene
    sessions = api(base, "GET", "/api/sessions")["sessions"]
    assert sessions
    for session in sessions:
        for message in api(base, "GET", f"/api/sessions/{session['id']}/messages?limit=100")["messages"]:
            assert not TEMPLATE_TOKEN.search(message["content"]), message
            # A loop the model varied only by its numbers ("Sourdough 2: … Sourdough 3: … Sourdough 16: …",
            # 2026-11-27) is kept once: no pattern three times in a stored answer.
            if message["role"] == "assistant":
                keys = [k for k in map(number_blind, sentences(message["content"])) if k]
                looped = {k for k in keys if keys.count(k) >= 3}
                assert not looped, f"a loop varied only by its numbers: {looped} in {message['content']!r}"


def test_briefing_is_about_the_notes(selene):
    base, proxy = selene
    settle(base, PROCESS_BOUND)
    before = len(proxy.chats)
    briefing = api(base, "GET", "/api/briefing")
    text = briefing["text"]
    assert text.strip()
    assert not TEMPLATE_TOKEN.search(text), text
    assert len(proxy.chats) > before, "the model was asked"
    # What a person reads is about their notes: the model's briefing when it speaks of them, else the
    # one Selene writes from them, which names them. Selene keeps a model's briefing that has two of a
    # note's words by stem, one of them of four letters or more (not a bare number: CI of b86c1e0 kept
    # "The 2020-21, 2021-22, … 2023-58, … 2023-60" for the car note's "60,000" and "58,400"); this checks
    # the floor every briefing that clears it clears too: a word of four letters of some note (by its
    # first four), or a note's title, the prompt's own words aside. A floor: a story sharing "Lisbon"
    # and one more word with a note passes both (2026-11-27).
    generic = {"morning", "briefing", "note", "notes", "thread", "threads", "task", "tasks", "today", "write", "written", "since",
               "words", "last", "with", "from", "that", "this", "have", "about", "what", "your", "which",
               # the instructions' list, which a briefing's headings are made of ("Which threads are moving:")
               "moving", "surprising", "connection", "worth", "look", "matter", "under", "plain", "text", "warm", "direct"}

    def stems(s):
        return {w[:4] for w in re.findall(r"[a-z]+", s.lower()) if len(w) >= 4 and w not in generic}
    said = stems(text)
    about = [title or content[:30] for title, content in NOTES
             if (title and re.search(r"\b" + re.escape(title.lower()) + r"\b", text.lower())) or said & stems(title + " " + content)]
    assert briefing["author"] in ("llm", "extractive"), briefing
    assert about, f"the briefing ({briefing['author']}) speaks of none of the notes: {text!r}"
    # Every sentence of a model's briefing is supported: one with words of its own (four letters or
    # more, the prompt's aside) shares one with the notes, threads or tasks ("My team and I are on a
    # sprint…", 2026-11-27, shares none and is left out). A floor under Selene's rule (most of its
    # content words are the notes'), as above.
    if briefing["author"] == "llm":
        given = " ".join(f"{t} {c}" for t, c in NOTES) + " " + " ".join(
            t["name"] + " " + t["summary"] for t in briefing["threads"]) + " " + " ".join(t["title"] for t in briefing["tasks"])
        known = stems(given)
        unsupported = [s for s in sentences(text) if stems(s) and not stems(s) & known]
        assert not unsupported, f"sentences no note supports: {unsupported} in {text!r}"
    print(f"\nbriefing ({briefing['author']}, about {len(about)} notes): {text[:300]!r}")


def test_answers_cut_short_are_retried_then_failed_with_the_reason():
    proxy = RecordingProxy(LLM_URL)
    server = start_selene(proxy.url, {"SELENE_MAX_TOKENS": "6"})
    base = server.base
    try:
        note = api(base, "POST", "/api/notes", {"content": "Planted tomatoes and basil in the raised bed; compost is ready."})
        settle(base, 300)
        after = api(base, "GET", f"/api/notes/{note['id']}")
        assert after["status"] == "failed" and after.get("primaryTheme") is None, after
        assert "cut off at the token limit" in after["lastError"], after["lastError"]
        analyses = [c for c in proxy.chats if c.get("response_format")]
        assert len(analyses) >= 2 and all(c["max_tokens"] == 6 for c in analyses), "asked again before failing"
        assert server.proc.poll() is None, "the server is still running"
        assert api(base, "GET", "/health")["status"] == "ok"
    finally:
        server.stop()
        proxy.server.shutdown()
