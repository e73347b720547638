"""Chat answers under context-line formats and sampling, sent straight to a model server
(llama-server from `scripts/real-model --serve`): how many answers hold the expected fact, cite
the note that holds it (the model's own citations), loop, or run to the 160-token limit. Sets:
the real-model tier's ten questions, Benchmarks/selene-answers' tuning half, and 20 what/when
questions of Benchmarks/selene-talk's tuning half (no expected words: citations only). The notes
shown are the five sharing most words with the question, the answer note among them. `iso` is
the line before 2026-11-26 (`[n] title — 2026-11-26 — text`), `words` Selene's now. `"k": N` among the sampling
options shows N notes instead of five (the answer note always among them).

    python3 Benchmarks/selene-sampling/chat.py http://127.0.0.1:PORT/v1 'iso|{"temperature":0.2};words|{"temperature":0.2}' tier,answers,talk
"""
import os
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import json, re, sys, time, urllib.request, ast, random
url = sys.argv[1]; variants = sys.argv[2].split(";"); which = sys.argv[3].split(",") if len(sys.argv) > 3 else ["tier", "answers", "talk"]
SYSTEM = "You are Selene, a private thinking companion. You answer from the person's own notes and what you remember about them. Answer briefly and warmly, in plain text."
RULE = ("Answer from these notes only. After each sentence, put the number of the note it comes from "
        "in square brackets, like [2]. If the notes don't answer the question, say so instead of guessing.")
STOP = ["<|im_end|>", "<|im_start|>", "<end_of_turn>", "<start_of_turn>"]
STOPW = set("the a an of and or to in on at for with is was are were i my me do did does what when where how much many which who why this that it be have has had".split())
def words(s): return re.findall(r"[a-z0-9]+", s.lower())
def content(s): return {w for w in words(s) if w not in STOPW and len(w) > 1}
def fmt(style, n, title, text, day):
    t = title or ""
    if style == "iso": return f"[{n}] {t or text[:40]} — {day} — {text}"
    if style == "words": return f"[{n}] {t + ': ' if t else ''}{text} (written {day_words(day)})"
    if style == "nodate": return f"[{n}] {t + ': ' if t else ''}{text}"
def day_words(day):
    y, m, d = day.split("-"); return f"{int(d)} {['Jan','Feb','Mar','Apr','May','Jun','Jul','Aug','Sep','Oct','Nov','Dec'][int(m)-1]} {y}"
def contexts(notes, q, answer_ids, k=5):
    qc = content(q)
    ranked = sorted(notes, key=lambda n: -len(qc & content(n[1] + " " + n[2])))
    top = ranked[:k]
    if not any(n[0] in answer_ids for n in top):
        top[-1] = next(n for n in notes if n[0] in answer_ids)
    return top
def load_tier():
    src = open(os.path.join(ROOT, "Tests/realmodel/test_real_model.py")).read()
    notes = ast.literal_eval(src[src.index("NOTES = [") + 8: src.index("]\nENUMS") + 1])
    notes = [(str(i), t, c, "2026-11-26") for i, (t, c) in enumerate(notes)]
    qs = [("How much was the second quote for the chimney flashing?", "Roof again", "1,450"), ("When does Anna turn 40?", "Anna's birthday", "12th of May"),
          ("How long was my long run in marathon training?", "Marathon training", "24 km"), ("What hydration do I want for the next sourdough loaf?", "Sourdough", "75%"),
          ("When is my dentist appointment?", "Dentist appointment moved", "Tuesday 3pm"), ("What was my blood pressure at the pharmacy?", "Health", "128/82"),
          ("How much did I spend on groceries this month?", "Budget", "420"), ("When is the car service due?", "Car", "60,000"),
          ("Where is the wifi password for the cabin?", "Note to self: the wifi", "router"), ("What size of picture hooks do I need?", "Bought the wrong size of picture hooks", "3 mm")]
    out = []
    for q, label, ans in qs:
        ids = {n[0] for n in notes if (n[1] or n[2]).startswith(label)}
        out.append((q, ids, ans, notes))
    return out
def load_answers(half):
    notes = [(j["_id"], j.get("title", ""), j["text"], "2026-11-26") for j in map(json.loads, open(os.path.join(ROOT, "Benchmarks/selene-answers/corpus.jsonl")))]
    return [(j["text"], {j["metadata"]["note"]}, j["metadata"]["answer"], notes) for j in map(json.loads, open(os.path.join(ROOT, "Benchmarks/selene-answers/queries.jsonl"))) if j["metadata"]["half"] == half]
def load_talk(n=20):
    corpus = [json.loads(l) for l in open(os.path.join(ROOT, "Benchmarks/selene-talk/corpus.jsonl"))]
    byconv = {}
    for j in corpus: byconv.setdefault(j["metadata"]["conversation"], []).append((j["_id"], "", j["text"], j["metadata"]["date"][:10]))
    qrels = {}
    for line in list(open(os.path.join(ROOT, "Benchmarks/selene-talk/qrels/dev.tsv")))[1:]:
        q, c, s = line.split("\t"); qrels.setdefault(q, set()).add(c)
    qs = [json.loads(l) for l in open(os.path.join(ROOT, "Benchmarks/selene-talk/queries.jsonl"))]
    qs = [q for q in qs if q["_id"] in qrels and q["metadata"]["kind"] in ("what", "when")]
    random.Random(7).shuffle(qs)
    return [(q["text"], qrels[q["_id"]], None, byconv[q["metadata"]["conversation"]]) for q in qs[:n]]
def loops(t): return re.search(r"(.{3,30}?)\1{2,}", t, re.S) is not None
def ask(extra, style, q, ctx):
    lines = ["Notes from my second brain:"] + [fmt(style, i + 1, n[1], n[2], n[3]) for i, n in enumerate(ctx)]
    user = "\n".join(lines) + "\n\n" + RULE + "\n\nQuestion: " + q
    body = {"model": "m", "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}], "stream": False,
            "max_tokens": 160, "stop": STOP, **extra}
    r = json.load(urllib.request.urlopen(urllib.request.Request(url + "/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}), timeout=600))
    return r["choices"][0]["message"]["content"], r["choices"][0]["finish_reason"]
sets = {"tier": lambda: load_tier(), "answers": lambda: load_answers("dev"), "answers-test": lambda: load_answers("test"), "talk": lambda: load_talk()}
for v in variants:
    style, _, sampling = v.partition("|")
    extra = json.loads(sampling) if sampling else {}
    k = extra.pop("k", 5)
    for name in which:
        qs = sets[name](); hold = cite = lp = cut = 0; t0 = time.time(); ex = []
        for q, ids, ans, notes in qs:
            ctx = contexts(notes, q, ids, k)
            text, finish = ask(extra, style, q, ctx)
            nums = {int(x) for x in re.findall(r"\[(\d+)\]", text)}
            right = {i + 1 for i, n in enumerate(ctx) if n[0] in ids}
            cite += bool(nums & right); lp += loops(text); cut += finish == "length"
            if ans: hold += set(words(ans)) <= set(words(text))
            if len(ex) < 3 and (not nums & right or loops(text)): ex.append(text[:100])
        print(f"{v} {name}({len(qs)}): holds {hold}, cites answer note {cite}, loops {lp}, cut {cut}, {(time.time()-t0)/len(qs):.1f} s/q", flush=True)
        for e in ex: print("    ", repr(e))
