#!/usr/bin/env python3
"""Writes Selene's second retrieval development set, of another shape than selene-life, in BEIR's
layout: corpus.jsonl (chat turns), queries.jsonl, qrels/dev.tsv (the half retrieval is tuned on)
and qrels/test.tsv (the half it is reported on). Run again, it writes the same files (seeded).

selene-life is one person's own notes, dated by when they were written. This set is what a person
imports from a messaging app: six conversations between two or three people over months, one note
per turn, exported in two formats that put the speaker's name and the moment *inside the text*:

    Maya (7:42 pm on 3 March, 2024): I finally adopted a dog from the shelter!
    [03/03/2024, 19:42] Priya: the interview went better than I thought

Every note of a conversation carries its speakers' names, and every note's own date is the day of
the export, so neither says anything about which turn answers a question: the date that matters is
the one in the text. Each question searches its own conversation (`metadata.conversation`), as a
person asks about one chat at a time. Kinds of question:

  what      what someone did, got, said or has ("What kind of pet did Maya adopt?")
  when      when something happened: answered by the date in the turn's text
  feel      how someone felt about something
  plan      what someone plans or intends
  multi     an answer spread over sessions ("Which cities did Tom travel to?"): every turn is relevant
  month     what someone said about a subject in a given month, when they spoke of it in several

Around the facts: greetings, reactions and small talk in the same everyday words, and the other
speakers' own facts on the same subjects (two people with dogs, two with trips), so the name asked
about matters. Everything here is written for this set. Relevance: 2 answers it, 1 is about it.
"""
import datetime as dt
import json
import os
import random

RNG = random.Random(20261126)
HERE = os.path.dirname(os.path.abspath(__file__))
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

CONVERSATIONS = [
    # id, speakers, first session, export style
    ("maya-jonah", ["Maya", "Jonah"], dt.datetime(2023, 9, 4, 19, 10), "paren"),
    ("priya-tom", ["Priya", "Tom"], dt.datetime(2024, 1, 15, 8, 30), "bracket"),
    ("lena-marco-suki", ["Lena", "Marco", "Suki"], dt.datetime(2023, 5, 2, 20, 5), "paren"),
    ("ade-rosa", ["Ade", "Rosa"], dt.datetime(2024, 3, 9, 12, 40), "bracket"),
    ("felix-hana", ["Felix", "Hana"], dt.datetime(2023, 11, 20, 21, 15), "paren"),
    ("omar-claire-dev", ["Omar", "Claire", "Dev"], dt.datetime(2024, 6, 1, 9, 50), "bracket"),
]
SESSIONS = 28

# Events a person tells about. Each: the turns the speaker writes (the first is the evidence; a
# later one too when marked "*"), what the others answer, and the questions it answers, by kind.
# {who} the speaker, {v} the event's value, {w} a second value.
EVENTS = {
    "pet": dict(values=[("dog", "Biscuit"), ("cat", "Miso"), ("rabbit", "Clover"), ("dog", "Pepper"), ("parrot", "Kiwi"), ("cat", "Juniper")],
                say=["Big news: we adopted a {v} from the shelter on Saturday, she's called {w}!",
                     "*{w} has already chewed through one charging cable. Worth it though."],
                answer=["No way, a {v}! You have to send pictures.", "That's so lovely, {w} is a great name."],
                ask=[("what", "What kind of animal did {who} bring home from the shelter?"),
                     ("what", "What is the name of {who}'s new {v}?"),
                     ("when", "When did {who} adopt {w}?")]),
    "race": dict(values=[("half marathon", "Lisbon"), ("10K", "the river path"), ("marathon", "Berlin"), ("trail run", "the Peak District"), ("5K", "the park")],
                 say=["Finished the {v} in {w} this morning, legs are jelly but I did it.",
                      "*Already looking at the next one, the training actually made me sleep better."],
                 answer=["Congrats!! What was your time?", "That's huge, well done you."],
                 ask=[("what", "What race did {who} complete in {w}?"), ("when", "When did {who} run the {v}?"),
                      ("feel", "How did {who} feel right after finishing the race?")]),
    "job": dict(values=[("a product designer role", "a fintech startup"), ("a senior nurse post", "the children's hospital"),
                        ("a teaching job", "a secondary school in Leeds"), ("a data analyst position", "the city council"),
                        ("an editor job", "a small publisher")],
                say=["I got the offer! {v} at {w}, I start next month.", "*Honestly still a bit scared I'm not ready for it."],
                answer=["Amazing, you totally deserve it.", "So proud of you, we need to celebrate."],
                ask=[("what", "What job was {who} offered?"), ("what", "Where is {who}'s new job?"),
                     ("feel", "How does {who} feel about starting the new job?"), ("when", "When did {who} get the job offer?")]),
    "trip": dict(values=[("Kyoto", "the temples at dawn"), ("Lisbon", "the tiled houses and the custard tarts"), ("Iceland", "the black sand beach"),
                         ("Marrakech", "the spice market"), ("Edinburgh", "the castle in the fog"), ("Vienna", "the coffee houses"),
                         ("Oaxaca", "the mole and the markets"), ("Copenhagen", "cycling everywhere")],
                 say=["Just back from {v}! The best part was {w}.", "*I'd go back to {v} tomorrow if I could."],
                 answer=["Jealous! Was it expensive?", "Sounds like a dream trip."],
                 ask=[("what", "What did {who} like most about the trip to {v}?"), ("when", "When did {who} come back from {v}?")],
                 multi=("Which places did {who} travel to?", "trip")),
    "hobby": dict(values=[("pottery", "a wonky mug"), ("guitar", "my first full song"), ("climbing", "my first V3 problem"),
                          ("watercolour painting", "a painting of the harbour"), ("sourdough baking", "a loaf with a proper ear"),
                          ("knitting", "a scarf for my sister")],
                  say=["I signed up for a {v} class on Tuesday evenings, trying something new.",
                       "*Update on {v}: I finally made {w}!"],
                  answer=["Ooh fun, how's it going?", "You'll be great at it."],
                  ask=[("what", "What class did {who} sign up for?"), ("what", "What did {who} manage to make in the {v} class?"),
                       ("when", "When did {who} start the {v} class?")],
                  multi=("How has {who}'s {v} been going over time?", None)),
    "move": dict(values=[("a flat near the canal", "the landlord finally fixed the boiler"), ("a house with a garden", "we can grow tomatoes"),
                         ("my sister's spare room", "the rent is half what I paid"), ("a studio in the old town", "it's two minutes from work")],
                 say=["We're moving into {v} at the end of the month.", "*Settled in now, the good part is {w}."],
                 answer=["Exciting! Need help carrying boxes?", "New place, new start."],
                 ask=[("what", "Where is {who} moving to?"), ("what", "What does {who} like about the new place?"),
                      ("when", "When did {who} say they were moving?")]),
    "family": dict(values=[("my brother", "a baby girl, Ava"), ("my cousin", "twins"), ("my best friend", "a little boy, Theo"),
                           ("my sister", "a baby boy, Leo")],
                   say=["{v} just had {w}, I'm an auntie/uncle-ish now!", "*Held the baby for the first time today, tiny hands."],
                   answer=["Congratulations to the whole family!", "Aww, so much love."],
                   ask=[("what", "Who in {who}'s family had a baby?"), ("what", "What was the baby called that {who} mentioned?"),
                        ("when", "When did {who} share the news about the baby?")]),
    "health": dict(values=[("sprained my ankle", "physio twice a week"), ("had my wisdom teeth out", "soup for a week"),
                           ("got a bad flu", "three days in bed"), ("hurt my back lifting boxes", "a standing desk")],
                   say=["Ugh, I {v} so I'm out of action for a bit.", "*The doctor says {w} should sort it."],
                   answer=["Oh no, get well soon!", "Take it easy, seriously."],
                   ask=[("what", "What happened to {who}'s health?"), ("what", "What did the doctor recommend to {who}?"),
                        ("when", "When did {who} get hurt or ill?")]),
    "plan": dict(values=[("save up for a van and travel for a year", "next spring"), ("learn Spanish before the summer", "the summer"),
                         ("open a small bakery", "in two years"), ("run for the local council", "next autumn"),
                         ("go back to university for a masters", "September")],
                 say=["Can I tell you something? I want to {v}. Aiming for {w}.", "*Still thinking about the plan to {v}, I made a spreadsheet."],
                 answer=["That's brave, I love it.", "Do it! You'd regret not trying."],
                 ask=[("plan", "What is {who} planning to do?"), ("plan", "By when does {who} hope to make the big plan happen?")]),
    "purchase": dict(values=[("a second-hand road bike", "a bargain at 300"), ("a record player", "it sounds so warm"),
                             ("a proper espresso machine", "no more café queues"), ("an e-reader", "I read twice as much now"),
                             ("a sofa bed", "guests can finally stay over")],
                     say=["Treated myself to {v}, {w}.", "*Best thing I bought this year honestly."],
                     answer=["Nice, good choice.", "Ha, I've been eyeing one of those."],
                     ask=[("what", "What did {who} buy for themselves?"), ("feel", "What does {who} think of the thing they bought?")]),
    "feeling": dict(values=[("burnt out at work", "I'm taking a week off"), ("really lonely since the move", "I joined a book club"),
                            ("anxious about money", "I started a budget"), ("proud of myself", "I finally said no to extra shifts")],
                    say=["Been feeling {v} lately, not going to lie.", "*Small step: {w}."],
                    answer=["I'm here if you want to talk.", "That's a lot, be kind to yourself."],
                    ask=[("feel", "How has {who} been feeling lately?"), ("what", "What did {who} do about feeling that way?")]),
}

FILLER = [
    "Morning! How's your week going?", "Haha yes exactly", "Pretty quiet here, mostly caught up on sleep.",
    "Work has been crazy this week, sorry for the slow replies.", "Did you end up going in the end?", "Oh nice",
    "Weather is awful here, rain all day again.", "That sounds amazing", "Talk soon!", "Same here honestly",
    "Wait really?", "lol", "I had pasta for the third night in a row, no regrets.", "Are you around this weekend?",
    "Can't this weekend, maybe the one after?", "Ugh Mondays.", "Watched a terrible film last night, loved it.",
    "Long day. Going to bed early.", "Good luck today!", "How did it go?", "Not bad, could've been worse.",
    "Sending you a hug", "We should call soon, it's been ages.", "Yes! Sunday evening?", "Perfect.",
    "The train was late again, classic.", "I keep meaning to text you back, sorry.", "No worries at all",
    "Have you read anything good lately?", "Not really, too tired to read.", "Coffee tomorrow?", "Can't wait",
    "Just saw something that reminded me of you", "Happy Friday!", "The neighbours are drilling again.",
    "My phone died halfway through the day, total chaos.", "Thanks for checking in", "Miss you guys",
]


def stamp(style, speaker, when):
    hour = when.hour % 12 or 12
    if style == "paren":
        return f"{speaker} ({hour}:{when.minute:02d} {'am' if when.hour < 12 else 'pm'} on {when.day} {MONTHS[when.month - 1]}, {when.year})"
    return f"[{when.day:02d}/{when.month:02d}/{when.year}, {when.hour:02d}:{when.minute:02d}] {speaker}"


def line(style, speaker, when, text):
    return f"{stamp(style, speaker, when)}: {text}"


def fill(template, who, value):
    v, w = value
    return template.format(who=who, v=v, w=w)


notes = {}      # id -> (conversation, text, export date)
questions = {}  # id -> (kind, conversation, text, {note id: grade}, asked)


def build():
    for conv, speakers, first, style in CONVERSATIONS:
        # Each speaker's events: a sample of the kinds, each with its own value; trips and hobbies
        # can come twice (multi-session answers); two speakers may share a kind (the name decides).
        plans = []
        for speaker in speakers:
            kinds = RNG.sample(sorted(EVENTS), 8)
            for kind in kinds:
                spec = EVENTS[kind]
                value = RNG.choice(spec["values"])
                plans.append((speaker, kind, value))
            if "trip" in kinds:
                others = [v for v in EVENTS["trip"]["values"] if v not in [p[2] for p in plans if p[0] == speaker and p[1] == "trip"]]
                plans.append((speaker, "trip", RNG.choice(others)))
        RNG.shuffle(plans)
        # Sessions every 8–20 days; events spread over them, follow-ups two to six sessions later.
        when = first
        session_times = []
        for _ in range(SESSIONS):
            session_times.append(when)
            when = when + dt.timedelta(days=RNG.randint(8, 20), minutes=RNG.randint(-120, 120))
        export = (session_times[-1] + dt.timedelta(days=3)).replace(hour=10, minute=0)
        scheduled = {i: [] for i in range(SESSIONS)}
        for n, plan in enumerate(plans):
            s = min(SESSIONS - 1, n * SESSIONS // len(plans) + RNG.randint(0, 1))
            scheduled[s].append((plan, 0))
            follow = s + RNG.randint(2, 6)
            if follow < SESSIONS:
                scheduled[follow].append((plan, 1))
        evidence = {}  # (speaker, kind, value) -> [(note id, part, moment)]
        count = 0
        for s, at in enumerate(session_times):
            moment = at
            turns = []
            for (speaker, kind, value), part in scheduled[s]:
                say = EVENTS[kind]["say"]
                text = fill(say[part].lstrip("*"), speaker, value) if part < len(say) else None
                if text is None:
                    continue
                turns.append((speaker, text, (speaker, kind, value), part))
                other = RNG.choice([p for p in speakers if p != speaker])
                reply = fill(RNG.choice(EVENTS[kind]["answer"]), speaker, value)
                # Sometimes the answer names the speaker, as people do.
                turns.append((other, f"{speaker}! {reply}" if RNG.random() < 0.3 else reply, None, None))
            # Small talk before, between and after.
            for _ in range(RNG.randint(12, 20)):
                turns.insert(RNG.randint(0, len(turns)), (RNG.choice(speakers), RNG.choice(FILLER), None, None))
            for speaker, text, event, part in turns:
                moment = moment + dt.timedelta(minutes=RNG.randint(0, 6), seconds=RNG.randint(0, 59))
                count += 1
                id = f"{conv}-{count:04d}"
                notes[id] = (conv, line(style, speaker, moment, text), export)
                if event:
                    evidence.setdefault(event, []).append((id, part, moment))
        asked = export + dt.timedelta(days=1)
        ask_about(conv, speakers, evidence, asked)


def ask_about(conv, speakers, evidence, asked):
    def add(kind, text, rels):
        n = sum(1 for q in questions.values() if q[1] == conv) + 1
        questions[f"{conv}-q{n:03d}"] = (kind, conv, text, rels, asked)

    by_speaker_kind = {}
    for (speaker, kind, value), turns in evidence.items():
        by_speaker_kind.setdefault((speaker, kind), []).append((value, turns))
        first = [t for t in turns if t[1] == 0]
        if not first:
            continue
        main, _, moment = first[0]
        later = [t[0] for t in turns if t[1] == 1]
        spec = EVENTS[kind]
        for q_kind, template in RNG.sample(spec["ask"], min(2, len(spec["ask"]))):
            text = fill(template, speaker, value)
            rels = {main: 2}
            # A question about what came later ("what did they make", "the doctor said") is answered by the follow-up.
            if later and any(word in template for word in ["manage to make", "doctor recommend", "like about the new place", "think of the thing",
                                                           "do about feeling", "feel about starting"]):
                rels = {later[0]: 2, main: 1}
            elif later:
                rels[later[0]] = 1
            add(q_kind, text, rels)
    # Answers spread over sessions: every trip, or a hobby from its start to what it made.
    for (speaker, kind), items in by_speaker_kind.items():
        spec = EVENTS[kind]
        if "multi" not in spec:
            continue
        template, _ = spec["multi"]
        turns = [t for _, ts in items for t in ts]
        if kind == "trip" and len(items) >= 2:
            add("multi", template.format(who=speaker), {t[0]: 2 for t in turns if t[1] == 0})
        if kind == "hobby" and len({t[1] for t in turns}) == 2:
            add("multi", template.format(who=speaker, v=items[0][0][0]), {t[0]: 2 for t in turns})
            # The same subject spoken of in two months: ask about one of them.
            first, second = sorted(turns, key=lambda t: t[2])[:2]
            if (first[2].year, first[2].month) != (second[2].year, second[2].month):
                pick = RNG.choice([first, second])
                add("month", f"What did {speaker} say about {items[0][0][0]} in {MONTHS[pick[2].month - 1]} {pick[2].year}?", {pick[0]: 2})


def write():
    build()
    ids = sorted(questions)
    RNG.shuffle(ids)
    half = {q: ("dev" if i % 2 == 0 else "test") for i, q in enumerate(ids)}
    os.makedirs(os.path.join(HERE, "qrels"), exist_ok=True)
    with open(os.path.join(HERE, "corpus.jsonl"), "w") as f:
        for id, (conv, text, export) in notes.items():
            f.write(json.dumps({"_id": id, "title": "", "text": text,
                                "metadata": {"date": export.strftime("%Y-%m-%dT%H:%M:%SZ"), "conversation": conv}}) + "\n")
    with open(os.path.join(HERE, "queries.jsonl"), "w") as f:
        for id in sorted(questions):
            kind, conv, text, _, asked = questions[id]
            f.write(json.dumps({"_id": id, "text": text, "metadata": {"kind": kind, "conversation": conv,
                                                                      "asked": asked.strftime("%Y-%m-%dT%H:%M:%SZ")}}) + "\n")
    for name in ["dev", "test"]:
        with open(os.path.join(HERE, "qrels", f"{name}.tsv"), "w") as f:
            f.write("query-id\tcorpus-id\tscore\n")
            for id in sorted(questions):
                if half[id] == name:
                    for doc, grade in sorted(questions[id][3].items()):
                        f.write(f"{id}\t{doc}\t{grade}\n")
    kinds = {}
    for kind, *_ in questions.values():
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"{len(notes)} turns in {len(CONVERSATIONS)} conversations; {len(questions)} questions: "
          + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))


if __name__ == "__main__":
    write()
