#!/usr/bin/env python3
"""Writes Selene's fourth retrieval development set (#85), in BEIR's layout like the others:
corpus.jsonl (chat turns), queries.jsonl, qrels/dev.tsv (the half retrieval is tuned on) and
qrels/test.tsv (the half it is reported on). Run again, it writes the same files (seeded).

It is built exactly as selene-talk is (its `build.py` is imported and run: the same events, the
same kinds of question, the same relevance), by other people, with one difference — the one that
set's notes named: in selene-talk 2,863 of 3,139 turns repeat another word for word (38 lines of
small talk and two replies per kind of news, over and over), and a ranking rule that demotes a
turn said again wins there on the set's construction alone. Public conversations don't repeat
like that. Here nothing does: every line of small talk is made from parts (who, when, what
happened, a reaction) and kept only if no turn has said it before, every reply to news is its own,
and part of the small talk is about the same things the news is about (a neighbour's dog, a run
that didn't happen, a friend's trip), so the words of a question meet turns that don't answer it.
"""
import importlib.util
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("talk", os.path.join(HERE, "..", "selene-talk", "build.py"))
talk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(talk)

CHATTER = random.Random(20261202)
SAID = set()

OPEN = ["", "", "", "Ok so ", "Honestly ", "Random thought: ", "Quick one, ", "Sorry, ", "Right, ", "Btw ", "Hey, ", "Update: ", "Ha, "]
CLOSE = ["", "", "", " haha", "!", " anyway.", " x", " 😅", ", you know how it is.", " Talk later.", " lol"]
WHEN = ["today", "yesterday", "this morning", "last night", "all weekend", "on Tuesday", "this week", "since Monday", "after lunch", "at 6am"]
PEOPLE = ["my boss", "my neighbour", "my mum", "my flatmate", "the guy at the corner shop", "my dentist", "our landlord", "my aunt",
          "a colleague", "the plumber", "my brother-in-law", "the new intern", "my cousin", "the bus driver", "my old teacher"]
FOOD = ["pasta", "a curry", "leftover pizza", "toast and beans", "a very sad salad", "dumplings", "soup", "tacos", "a massive burrito",
        "porridge", "fish and chips", "ramen", "cheese on toast", "a stir fry"]
SHOWS = ["that baking show", "a true crime documentary", "an old Bond film", "the football", "a Korean drama", "the snooker",
         "a nature programme about octopuses", "some reality TV rubbish", "the new detective series", "a film about a heist"]
CHORES = ["the washing", "the hoovering", "my tax return", "the bathroom", "the fridge", "the recycling", "ironing", "the gutters"]
FEEL = ["knackered", "weirdly cheerful", "a bit flat", "so sleepy", "wired", "fine, just busy", "grumpy", "pretty good actually"]
# Small talk in the news's own words, none of it the news: what a question's words also meet.
TOPICAL = [
    "{p}'s dog barked for an hour {t}", "saw a cat on our wall {t}, just sitting there judging everyone",
    "was meant to go for a run {t} but it was raining", "{p} keeps talking about doing a marathon one day",
    "walked past the shelter {t}, so many sad faces in the window", "{p} is off to Lisbon next month, jealous",
    "the trains to Berlin cost a fortune, I looked {t} just for fun", "{p} got a new job and won't stop talking about it",
    "my ankle clicks when I go down stairs now, is that age", "{p} had the flu {t}, it's going round the office",
    "thinking about taking a pottery class one day, maybe", "the guitar in the corner is just a coat stand now",
    "our landlord says the boiler might be fixed {t}, we'll see", "{p} is moving house again, third time this year",
    "bought a coffee {t} that cost more than my lunch", "{p} says I should learn Spanish, as if I have time",
    "looked at bikes online {t}, didn't buy one", "{p}'s baby cried the whole train ride {t}",
    "was feeling a bit lonely {t}, better now", "my budget spreadsheet is mostly wishful thinking",
    "{p} went to Kyoto {t} and sent 200 photos", "I keep meaning to climb something, a wall, a hill, anything",
]
GENERAL = [
    "I had {f} {t}, no regrets", "watched {s} {t}, weirdly good", "finally did {c} {t}",
    "{p} called {t} and talked for an hour", "feeling {e} {t}", "the bus was late {t}, classic",
    "my phone died {t}, total chaos", "ran into {p} {t} at the shop", "spent {t} doing {c}, living the dream",
    "can't stop thinking about {f}", "{p} recommended {s}, not convinced", "the weather {t} was ridiculous",
    "I slept ten hours {t}, needed it", "{p} borrowed my umbrella {t} and I'll never see it again",
]
ASK = ["How's your week going?", "Are you around this weekend?", "Did you end up going?", "How did it go in the end?",
       "What are you up to {t}?", "Have you eaten?", "Still on for Sunday?", "Did you see my message about {s}?",
       "Want to call later?", "Are you feeling better?", "Did {p} ever get back to you?"]
REPLY = ["Oh nice", "Same here", "Ha, classic", "Wait really?", "Sounds about right", "Ugh, sorry", "No way", "Fair enough",
         "Love that", "Oh no", "Haha yes", "Honestly same", "Good for you", "That's so you"]


def fresh(make):
    """A line no turn of the set has said: made again until it is new."""
    for _ in range(1000):
        text = make()
        if text not in SAID:
            SAID.add(text)
            return text
    raise RuntimeError("ran out of small talk")


def smalltalk():
    c = CHATTER
    slots = dict(p=c.choice(PEOPLE), t=c.choice(WHEN), f=c.choice(FOOD), s=c.choice(SHOWS), c=c.choice(CHORES), e=c.choice(FEEL))
    kind = c.random()
    if kind < 0.35:
        body = c.choice(TOPICAL).format(**slots)
    elif kind < 0.7:
        body = c.choice(GENERAL).format(**slots)
    elif kind < 0.85:
        reply = c.choice(REPLY)
        more = c.choice(GENERAL).format(**slots)
        return reply + c.choice(["", "!", ". " + upper(more)]) + c.choice(CLOSE)
    else:
        return c.choice(ASK).format(**slots) + c.choice(["", " " + c.choice(ASK).format(**slots)])
    opener = c.choice(OPEN)
    return (opener + (body if opener else upper(body))).strip() + c.choice(CLOSE)


def upper(text):
    return text[:1].upper() + text[1:]


REACT = {
    "pet": ["send pictures immediately", "what does she eat", "is she house trained yet", "my heart", "animals make everything better"],
    "race": ["what was your time", "are your legs ok", "you absolute legend", "did you cry at the finish", "medal pics please"],
    "job": ["you deserve it", "we're celebrating", "when do you start", "tell me everything", "that's massive"],
    "trip": ["was it expensive", "jealous beyond words", "did you eat well", "I need the photos", "how was the flight"],
    "hobby": ["how's it going", "you'll be brilliant", "show me when it's done", "that sounds so calming", "I'd be hopeless at that"],
    "move": ["need help with boxes", "new start", "is it far from you", "housewarming when", "how's the area"],
    "family": ["congratulations to everyone", "so much love", "how's the mum doing", "tiny human", "you'll be the fun one"],
    "health": ["get well soon", "take it easy", "do you need anything", "that sounds awful", "rest up properly"],
    "plan": ["that's brave", "do it", "you'd regret not trying", "how long have you been thinking about it", "I'm in, sort of"],
    "purchase": ["good choice", "I've been eyeing one", "treat yourself", "was it pricey", "how is it so far"],
    "feeling": ["I'm here if you want to talk", "be kind to yourself", "that's a lot", "want to get a coffee", "proud of you for saying it"],
}


class Replies:
    """A kind of news's replies, each made fresh: the sequence `random.choice` draws from."""
    def __init__(self, kind):
        self.kind = kind

    def __len__(self):
        return 1000

    def __getitem__(self, _):
        c = CHATTER
        return fresh(lambda: upper((c.choice(["", "Oh ", "Wow, ", "Aw, ", "Honestly ", "Ok "]) + c.choice(REACT[self.kind])
                                    + c.choice(["!", "!!", ".", " 😊", " x", ", seriously."])).strip()))


SAY = {template.lstrip("*") for spec in talk.EVENTS.values() for template in spec["say"]}
told = talk.fill


def fill(template, who, value):
    """News as each person tells it: the event's line, in words of their own around it (so no two
    tellings are the same line)."""
    text = told(template, who, value)
    if template not in SAY:
        return text
    c = CHATTER
    return fresh(lambda: c.choice(["", "", "So ", "Guess what, ", "Ok news: ", "Not sure I told you, ", "Finally: "]) + text
                 + c.choice(["", "", " Still can't believe it.", " More soon.", " Anyway, how are you?", " Wild.", " 🙈"]))


class SmallTalk:
    def __len__(self):
        return 1000

    def __getitem__(self, _):
        return fresh(smalltalk)


talk.HERE = HERE
talk.RNG = random.Random(20261202)
talk.FILLER = SmallTalk()
talk.fill = fill
for kind, spec in talk.EVENTS.items():
    spec["answer"] = Replies(kind)
talk.CONVERSATIONS = [
    ("nadia-sam", ["Nadia", "Sam"], talk.dt.datetime(2023, 10, 2, 18, 40), "bracket"),
    ("ines-theo-ruth", ["Ines", "Theo", "Ruth"], talk.dt.datetime(2024, 2, 11, 9, 5), "paren"),
    ("kofi-beth", ["Kofi", "Beth"], talk.dt.datetime(2023, 6, 18, 21, 30), "paren"),
    ("luis-mei", ["Luis", "Mei"], talk.dt.datetime(2024, 4, 3, 13, 15), "bracket"),
    ("zara-ivan-joy", ["Zara", "Ivan", "Joy"], talk.dt.datetime(2023, 12, 1, 20, 0), "paren"),
    ("ben-anya", ["Ben", "Anya"], talk.dt.datetime(2024, 7, 7, 8, 45), "bracket"),
]

if __name__ == "__main__":
    talk.write()
