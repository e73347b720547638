"""Analyses at the first try under prompt and sampling variants, sent straight to a model server
(llama-server from `scripts/real-model --serve`) with Selene's analysis schema: how many are valid,
how many phrases copy the prompt's instruction words, how many concepts repeat. Two sets of notes:
the real-model tier's 30 and Benchmarks/selene-notes' first 20. p1 is the analysis prompt before
2026-11-26 (it listed enum values and counts), p2 the one Selene sends now (ProcessingPrompts).

    python3 Benchmarks/selene-sampling/analysis.py http://127.0.0.1:PORT/v1 'p1|{"temperature":0};p2|{"temperature":0,"repeat_penalty":1.1}'
"""
import os
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import json, re, sys, time, urllib.request, ast
sys.path.insert(0, os.path.join(ROOT, "Tests"))
url = sys.argv[1]
variants = sys.argv[2].split(";")
SYSTEM2 = ("You analyse one personal note at a time for a private second-brain app. Answer with JSON: what the note is "
 "about in the note's own words (a few short phrases, each once, with your confidence from 0 to 1), its main theme in two to "
 "four words, other themes if it has them, its sentiment with a score from -1 to 1, its emotional tone in a word or two, "
 "the writer's energy, what kind of note it is and whether it asks for action.")
INSTR = {"concept", "concepts", "theme", "themes", "primary", "secondary", "sentiment", "score", "emotional", "tone",
 "level", "type", "actionability", "actionable", "someday", "none", "confidence", "noun", "phrase", "json",
 "schema", "up", "to", "5", "3", "note", "positive", "neutral", "negative", "mixed", "low", "medium", "high",
 "idea", "task", "reflection", "question", "reference", "log", "about", "with", "your", "its", "the", "a", "of", "and", "or", "in", "words", "own", "main", "other", "kind", "asks", "action", "whether", "what", "it", "is", "writer", "energy", "phrases", "few", "short", "each", "once", "two", "four", "word", "one", "from", "0", "1"}
def copied(p, own):
    w = re.findall(r"[a-z0-9]+", p.lower())
    return bool(w) and all(x in INSTR for x in w) and not all(x in own for x in w)
PRINT = len(sys.argv) > 3
SYSTEM = ("You analyse one personal note at a time for a private second-brain app. Answer only with JSON matching the "
 "schema: up to 5 concepts the note is about with your confidence (0–1), its primary theme (a short noun "
 "phrase), up to 3 secondary themes, the overall sentiment (positive, neutral, negative or mixed) with a score "
 "from -1 to 1, the emotional tone in a word or two, the writer's energy (low, medium, high), the note type "
 "(idea, task, reflection, question, reference, log) and whether it asks for action (actionable, someday, none).")
def s(n=None): return {"type": "string", **({"maxLength": n} if n else {})}
def e(v): return {"type": "string", "enum": v}
props = {"concepts": {"type": "array", "items": {"type": "object", "properties": {"confidence": {"type": "number", "minimum": 0, "maximum": 1}, "name": s(80)}, "required": ["confidence", "name"]}, "maxItems": 5},
 "primaryTheme": s(80), "secondaryThemes": {"type": "array", "items": s(80), "maxItems": 3},
 "sentiment": e(["positive", "neutral", "negative", "mixed"]), "sentimentScore": {"type": "number", "minimum": -1, "maximum": 1},
 "emotionalTone": s(40), "energyLevel": e(["low", "medium", "high"]), "noteType": e(["idea", "task", "reflection", "question", "reference", "log"]),
 "actionability": e(["actionable", "someday", "none"])}
props = dict(sorted(props.items()))
SCHEMA = {"type": "object", "properties": props, "required": sorted(props)}
src = open(os.path.join(ROOT, "Tests/realmodel/test_real_model.py")).read()
notes_a = ast.literal_eval(src[src.index("NOTES = [") + 8: src.index("]\nENUMS") + 1])
notes_b = [(j.get("title", ""), j["text"]) for j in map(json.loads, open(os.path.join(ROOT, "Benchmarks/selene-notes/corpus.jsonl")))][:20]
COP = [0]; TOT = [0]; DUP = [0]
def loops(t):
    return re.search(r"(.{2,12}?)\1{3,}", t) is not None
def run(notes, extra):
    global SYS
    ok = 0; loop = 0; secs = 0; bad = []; COP[0] = TOT[0] = DUP[0] = 0
    for title, content in notes:
        user = "Note:\n" + (f"Title: {title}\n\n" if title else "") + content
        body = {"model": "m", "messages": [{"role": "system", "content": SYS}, {"role": "user", "content": user}], "stream": False,
                "max_tokens": 512, "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": SCHEMA, "strict": True}},
                "stop": ["<|im_end|>", "<|im_start|>"], **extra}
        t = time.time()
        r = json.load(urllib.request.urlopen(urllib.request.Request(url + "/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}), timeout=600))
        secs += time.time() - t
        c = r["choices"][0]; text = c["message"]["content"]
        good = c["finish_reason"] == "stop"
        try:
            j = json.loads(text); good = good and bool(j["primaryTheme"].strip())
            names = [x["name"].lower().strip() for x in j["concepts"]]
            rep = len(names) != len(set(names))
            own = set(re.findall(r"[a-z0-9]+", (title + " " + content).lower()))
            phrases = [j["primaryTheme"]] + j["secondaryThemes"] + names
            cp = sum(copied(p, own) for p in phrases); COP[0] += cp; TOT[0] += len(phrases); DUP[0] += len(names) - len(set(names))
            if copied(j["primaryTheme"], own) and all(copied(p, own) for p in phrases[1:]): good = False
        except Exception:
            good = False; rep = False
        lp = loops(text)
        if PRINT:
            try: print("      THEME", repr(j["primaryTheme"]), [x["name"] for x in j["concepts"]][:5], j["secondaryThemes"], flush=True)
            except Exception: print("      BAD", repr(text[:200]), flush=True)
        ok += good; loop += lp
        if not good or lp: bad.append(text[:120])
    return ok, loop, secs / len(notes), bad
for v in variants:
    prompt_name, _, v = v.partition("|")
    SYS = SYSTEM2 if prompt_name == "p2" else SYSTEM
    extra = json.loads(v) if v else {}
    for name, notes in (("tier30", notes_a), ("bench20", notes_b)):
        ok, lp, sec, bad = run(notes, extra)
        print(f"{v or '{}'} {name}: valid first try {ok}/{len(notes)}, looping strings {lp}, copied phrases {COP[0]}/{TOT[0]}, repeated concepts {DUP[0]}, {sec:.1f} s/note", flush=True)
        for b in bad[:4]: print("   ", repr(b))
