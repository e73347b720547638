#!/usr/bin/env python3
"""Writes Selene's answer development set: corpus.jsonl (a person's everyday notes) and
queries.jsonl (single-fact questions, each with the one note that answers it, a short expected
answer and its half: `dev` to tune on, `test` to report). Run again, it writes the same files.

Every fact sits in one note; around it are notes on the same subjects that don't answer the
question (the other quote for the roof, last year's dentist, a different bike), so retrieval and
the model can both go wrong in the ways a person would notice. `selene-bench --only answers` asks
each question through the real pipeline (retrieval → prompt → model → citations) and again with
only the answering note shown (the model's own ceiling). Everything here is written for this set.
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = random.Random(20261126)

# (id, title, text, question, expected answer) — the note answers the question.
FACTS = [
    ("roof2", "Roof again", "Second quote for the chimney flashing: 1,450, can start in two weeks. Leaning towards this one.",
     "How much was the second quote for the chimney flashing?", "1,450"),
    ("anna", "Anna's birthday", "Anna turns 40 on the 12th of May. She mentioned wanting a pottery class, maybe book one for two.",
     "When does Anna turn 40?", "12th of May"),
    ("run", "Long run", "Long run of 24 km today, knee felt fine until the last hill. Need new shoes soon.",
     "How far was my last long run?", "24 km"),
    ("dough", "Sourdough plan", "Next loaf: 75% hydration and a longer cold proof, 16 hours in the fridge.",
     "What hydration is the next sourdough loaf?", "75%"),
    ("dentist", "", "Dentist appointment moved to Tuesday at 3pm.",
     "When is the dentist appointment now?", "Tuesday at 3pm"),
    ("bp", "Health check", "Blood pressure 128/82 at the pharmacy. Doctor said to check again in three months.",
     "What was my blood pressure at the pharmacy?", "128/82"),
    ("groceries", "Budget", "Groceries were 420 this month, up from 350. Eating out is the real leak: 260.",
     "How much did groceries cost this month?", "420"),
    ("car", "Car service", "Car service due at 60,000 km; the odometer says 58,400. Book the garage for next month.",
     "At what mileage is the car service due?", "60,000 km"),
    ("wifi", "", "Note to self: the wifi password for the cabin is on the back of the router.",
     "Where is the cabin's wifi password?", "on the back of the router"),
    ("hooks", "", "Bought the wrong size of picture hooks again. Measure first next time: 3 mm.",
     "What size are the picture hooks I need?", "3 mm"),
    ("passport", "Passport", "Passport expires in August — renew it before the Lisbon trip.",
     "When does my passport expire?", "August"),
    ("boiler", "Boiler", "The boiler engineer said the pressure should sit at 1.5 bar when cold.",
     "What pressure should the boiler be at when cold?", "1.5 bar"),
    ("bike", "Bike gears", "Fixed the bike's gears myself with a video and a 5 mm hex key.",
     "What tool did I use to fix the bike gears?", "5 mm hex key"),
    ("flight", "Lisbon flights", "Flights to Lisbon are cheapest on Tuesdays, about 89 return.",
     "On which day are flights to Lisbon cheapest?", "Tuesdays"),
    ("paint", "Hallway paint", "Hallway paint colour: Farrow & Ball Elephant's Breath, two coats.",
     "What colour did we pick for the hallway?", "Elephant's Breath"),
    ("vet", "Vet", "Miso's vaccinations are due on 3 March; the vet is Dr. Patel on Mill Road.",
     "When are Miso's vaccinations due?", "3 March"),
    ("plant", "Fiddle leaf fig", "Water the fiddle leaf fig every 10 days, only when the top 2 cm of soil is dry.",
     "How often should I water the fiddle leaf fig?", "every 10 days"),
    ("tom", "Meeting with Tom", "Tom wants the migration done by March. We agreed to freeze features for two weeks in February.",
     "By when does Tom want the migration done?", "March"),
    ("book", "Reading", "Finished 'The Overstory'. Next up: 'Thinking in Systems' by Donella Meadows.",
     "Which book am I reading next?", "Thinking in Systems"),
    ("spanish", "Spanish", "Forty days in a row on the Spanish lessons; the subjunctive still confuses me.",
     "How many days in a row have I done Spanish lessons?", "Forty days"),
    ("parking", "", "Parked on level 4, bay C12, at the airport car park.",
     "Where did I park at the airport?", "level 4, bay C12"),
    ("recipe", "Pancakes", "Pancakes that worked: 200 g flour, 2 eggs, 300 ml milk, a pinch of salt.",
     "How much milk goes in the pancakes?", "300 ml"),
    ("insurance", "Home insurance", "Home insurance renews on 1 October; the policy number is HX-48213.",
     "What is the home insurance policy number?", "HX-48213"),
    ("shoes", "Running shoes", "New running shoes: size 44, the wide fit, the blue ones were 20% off.",
     "What size running shoes did I buy?", "44"),
    ("sam", "Sam's address", "Sam moved to 14 Orchard Lane, flat 2. Doorbell doesn't work, text instead.",
     "What is Sam's new address?", "14 Orchard Lane"),
    ("bins", "", "Recycling goes out on Thursday night, general waste every other Monday.",
     "When does the recycling go out?", "Thursday night"),
    ("tyres", "Tyres", "Front tyre pressure 2.3 bar, rear 2.5 bar, checked at the garage.",
     "What pressure for the rear tyres?", "2.5 bar"),
    ("printer", "Printer", "The printer ink is HP 305XL; the black one runs out first.",
     "Which ink does the printer take?", "HP 305XL"),
    ("garden", "Garden", "Planted tomatoes and basil in the raised bed on the south wall.",
     "What did I plant in the raised bed?", "tomatoes and basil"),
    ("cello", "", "The new neighbour plays the cello in the evenings, usually around 8.",
     "What instrument does the new neighbour play?", "cello"),
    ("coffee", "Sleep", "Stopping coffee after 2pm for a week to see if I sleep better.",
     "After what time am I stopping coffee?", "2pm"),
    ("school", "Parents' evening", "Parents' evening is on the 14th at 6:30; ask about the maths club.",
     "What time is parents' evening?", "6:30"),
    ("gym", "Gym", "Gym membership is 32 a month, cancel by the 25th to avoid the next charge.",
     "How much is the gym membership?", "32 a month"),
    ("keys", "", "Spare keys are with Maria at number 9.",
     "Who has the spare keys?", "Maria at number 9"),
    ("fridge", "Fridge", "The fridge model is Bosch KGN39, bought in 2019, warranty until 2024.",
     "What model is the fridge?", "Bosch KGN39"),
    ("wine", "Dinner party", "Mum's favourite wine is a Rioja Reserva; get two bottles for Sunday.",
     "What is Mum's favourite wine?", "Rioja Reserva"),
    ("laptop", "Laptop", "Laptop battery replaced at the repair shop for 85; they gave a 6-month guarantee.",
     "How much did the laptop battery replacement cost?", "85"),
    ("hike", "Hike", "The Snowdon hike took 6 hours via the Pyg Track; start before 8 to get parking.",
     "Which route did we take up Snowdon?", "Pyg Track"),
    ("allergy", "", "Leo is allergic to peanuts and kiwi, remember for the party.",
     "What is Leo allergic to?", "peanuts and kiwi"),
    ("bank", "Savings", "Moved the emergency fund to the savings account at 4.1% interest.",
     "What interest does the savings account pay?", "4.1%"),
]

# Notes on the same subjects that do not answer the questions.
NEAR = [
    ("Roof", "The roofer came by: the flashing around the chimney is rusted through. First quote was 1,800."),
    ("", "Anna's partner asked what to get her; I said something to do together, not a thing."),
    ("Marathon training", "Short recovery run, 6 km, easy pace. Legs heavy from the weekend."),
    ("Sourdough", "Fed the starter at 8pm, doubled by morning."),
    ("", "Last year's dentist visit: one small filling, nothing else."),
    ("", "Took Mum's blood pressure with her new cuff, looks fine."),
    ("Budget", "Electricity bill came in at 95 this quarter, lower than expected."),
    ("", "The car's MOT is in June; the garage on Station Road was quick last time."),
    ("", "The office wifi keeps dropping in the afternoon."),
    ("", "Hung the mirror in the hall finally, used the big rawl plugs."),
    ("Lisbon", "Sam can do the second week of October for Lisbon."),
    ("", "Radiators in the bedroom need bleeding before winter."),
    ("", "Bike shop said the chain is worn, replace it in spring."),
    ("Paint", "Kitchen paint samples look too yellow in the evening light."),
    ("", "Miso hid under the bed all afternoon during the storm."),
    ("", "Repotted the basil, it was root-bound."),
    ("Team", "Retro idea: a shared doc instead of sticky notes."),
    ("Reading list", "Something lighter after that, maybe Pratchett."),
    ("", "Drove to the airport for Dad's flight, traffic was fine."),
    ("Baking", "Banana bread with three old bananas, 180 degrees for 50 minutes."),
    ("", "Car insurance went up again, shop around in February."),
    ("", "Walking shoes are falling apart, the sole is loose."),
    ("", "Sam's birthday is in December, he likes board games."),
    ("", "Garden waste collection is paid for until March."),
    ("", "The printer keeps saying paper jam when there's none."),
    ("", "Grateful for the long walk with Mum along the river today."),
    ("", "Coffee with Jo on Friday at the new place by the station."),
    ("", "The gym is packed at 6pm, go at lunch instead."),
    ("", "Lost my keys for an hour, they were in the coat pocket."),
    ("", "Freezer needs defrosting, the drawer sticks."),
    ("", "Leo's party is on Saturday at 2, bring a present under 15."),
    ("", "Current account overdraft fee went up, annoying."),
]


def write():
    ids = [f[0] for f in FACTS]
    RNG.shuffle(ids)
    half = {id: ("dev" if i % 2 == 0 else "test") for i, id in enumerate(ids)}
    with open(os.path.join(HERE, "corpus.jsonl"), "w") as f:
        for id, title, text, *_ in FACTS:
            f.write(json.dumps({"_id": id, "title": title, "text": text}) + "\n")
        for n, (title, text) in enumerate(NEAR, 1):
            f.write(json.dumps({"_id": f"near-{n:02d}", "title": title, "text": text}) + "\n")
    with open(os.path.join(HERE, "queries.jsonl"), "w") as f:
        for id, _, _, question, answer in FACTS:
            f.write(json.dumps({"_id": f"q-{id}", "text": question, "metadata": {"note": id, "answer": answer, "half": half[id]}}) + "\n")
    print(f"{len(FACTS) + len(NEAR)} notes, {len(FACTS)} questions ({sum(1 for h in half.values() if h == 'dev')} to tune on)")


if __name__ == "__main__":
    write()
