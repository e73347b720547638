#!/usr/bin/env python3
"""Writes Selene's retrieval development set in BEIR's layout: corpus.jsonl (a year of one person's
notes, each with its date in metadata), queries.jsonl (questions with their kind and the moment
they are asked in metadata), qrels/dev.tsv (the half retrieval is tuned on) and qrels/test.tsv
(the half it is reported on). Run again, it writes the same files (seeded).

Everything below is written for this set. The person: works in software, has a flat with
projects that drag on, runs, bakes, gardens, has family and friends who message them. Six kinds
of question, each at least 50:

  named       names a thing the note names (a product, a book, a place)
  paraphrase  describes a note in other words: no content word shared with it (checked below)
  time        anchored in time: "what did I decide about the roof in March" (three notes on the
              roof, one from March), "when did I last get a haircut" (the newest one)
  several     "what do I know about X": every note of a topic is relevant
  people      asks about a person by name; other notes mentioning them are noise
  chatty      short message-like notes ("booked Ferro's for 8 fri")

Around them: about 1,600 everyday notes (journal lines, meetings, meals, weather), drawn from
their own vocabulary, and some long weekly reviews with a fact buried after the first 256 tokens
(what an embedding of the whole note cannot see). Relevance: 2 answers it, 1 is about it.
"""
import datetime as dt
import json
import os
import random
import re

RNG = random.Random(20261121)
START = dt.datetime(2025, 11, 24, tzinfo=dt.timezone.utc)
NOW = dt.datetime(2026, 11, 21, 9, 0, tzinfo=dt.timezone.utc)
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

notes = {}      # id -> (title, text, date)
questions = {}  # id -> (kind, text, {note id: grade})


def day(month, dom=None, year=2026):
    """A moment in a month of the year the notes span (December is 2025's)."""
    if month == 12 and year == 2026:
        year = 2025
    dom = dom or RNG.randint(2, 20 if (year, month) == (NOW.year, NOW.month) else 27)
    return dt.datetime(year, month, dom, RNG.randint(7, 22), RNG.randint(0, 59), tzinfo=dt.timezone.utc)


def any_day():
    return START + dt.timedelta(seconds=RNG.randint(0, int((NOW - START).total_seconds()) - 3600))


def note(prefix, text, title="", date=None):
    id = f"{prefix}-{sum(1 for k in notes if k.startswith(prefix + '-')) + 1:03d}"
    notes[id] = (title, text, date or any_day())
    return id


def ask(kind, text, rels):
    id = f"{kind}-{sum(1 for q in questions.values() if q[0] == kind) + 1:03d}"
    questions[id] = (kind, text, rels)


# --- named: the question names what the note names ----------------------------------------------
NAMED = [
    ("Kallax", "The Kallax shelf in the hallway wobbles. Anchor it to the wall with the brackets from the box.", "Kallax shelf"),
    ("Piranesi", "Finished Piranesi. The house with the tides and the statues — I want to keep a journal of small wonders like he does.", "Piranesi book"),
    ("San Marzano", "Sowed San Marzano seeds in the propagator, twelve cells, heat mat on.", "San Marzano seeds"),
    ("Roborock", "The Roborock keeps getting stuck under the sofa. Raise the sofa legs or block it off with the virtual wall.", "Roborock stuck"),
    ("Aeropress", "Aeropress recipe that works: 15 g, 200 ml at 85 degrees, inverted, two minute steep.", "Aeropress recipe"),
    ("Livraria Lello", "Porto: queue for Livraria Lello opens at 9, buy the voucher online, it counts against a book.", "Livraria Lello tickets"),
    ("Helm", "The Helm chart values for staging and production have drifted apart. Write one values file per environment and diff them in CI.", "Helm chart values"),
    ("Gymnopédie", "Piano: the left hand of the first Gymnopédie is finally even. Slow practice with the metronome at 60 did it.", "Gymnopédie left hand"),
    ("Obsidian", "Moved my reading notes into Obsidian. Daily note template with a section for quotes.", "Obsidian template"),
    ("Fujifilm", "The Fujifilm X100 battery dies after 200 shots. Buy two spare batteries before the trip.", "Fujifilm battery"),
    ("Brompton", "Brompton rear tyre keeps going flat. The shop says the rim tape has shifted.", "Brompton tyre"),
    ("Vitamix", "The Vitamix jug has a crack along the base. The warranty covers it — the receipt is in the drawer.", "Vitamix warranty"),
    ("Le Creuset", "Le Creuset casserole has a chip in the enamel. Stop using metal spoons in it.", "Le Creuset chip"),
    ("Terraform", "Terraform state lock got stuck after the pipeline was cancelled. Force-unlock with the lock id from the error.", "Terraform state lock"),
    ("Grafana", "Built a Grafana board for the queue: depth, age of the oldest message, consumer lag.", "Grafana board"),
    ("Duolingo", "Duolingo streak at 200 days, but the Spanish I can actually speak has not moved. Switch to conversation practice.", "Duolingo streak"),
    ("Strava", "Strava says my easy runs are too fast: average heart rate 158. Slow down to stay under 145.", "Strava heart rate"),
    ("Garmin", "The Garmin watch lost GPS twice in the park. Update the firmware and the satellite data.", "Garmin GPS"),
    ("Moka pot", "The Moka pot gasket is cracked; the coffee tastes burnt. Order a replacement gasket, size 3 cup.", "Moka pot gasket"),
    ("Monstera", "The Monstera has yellow leaves at the bottom. Too much water — let the top five centimetres dry out.", "Monstera yellow leaves"),
    ("Dispossessed", "The Dispossessed: Shevek's idea that freedom needs constant renewal keeps coming back to me.", "The Dispossessed"),
    ("Braiding Sweetgrass", "Braiding Sweetgrass on reciprocity: take only what is given and give something back.", "Braiding Sweetgrass"),
    ("Sagrada", "Board game night: Sagrada was a hit, everyone wants to play it again. Ana won with the purple windows.", "Sagrada board game"),
    ("Wingspan", "Wingspan takes too long with five players. Next time play with four and the quick setup.", "Wingspan"),
    ("Miyazaki", "Watched Porco Rosso. Miyazaki films always make me want to draw again.", "Miyazaki film"),
    ("Bialetti", "Found the old Bialetti at Grandpa's. He says it is older than me.", "Bialetti"),
    ("Kindle", "The Kindle won't charge. Tried another cable; it might be the port.", "Kindle charging"),
    ("Nespresso", "Descaled the Nespresso machine at work. The orange light is off now.", "Nespresso descaling"),
    ("Postgres 16", "Upgraded the reporting database to Postgres 16. pg_upgrade in link mode, down for four minutes.", "Postgres 16 upgrade"),
    ("Kafka", "The Kafka consumer group rebalanced every few minutes: the session timeout is shorter than the processing time.", "Kafka rebalancing"),
    ("Raspberry Pi", "Set up the Raspberry Pi as a Pi-hole. Ads gone on every device in the flat.", "Raspberry Pi setup"),
    ("Ottolenghi", "Made the Ottolenghi aubergine with buttermilk sauce. Too much za'atar; half next time.", "Ottolenghi aubergine"),
    ("Camino", "Thinking about walking the Camino Portugués next September, from Porto, about 240 km.", "Camino Portugués"),
    ("Lofoten", "Lofoten in winter: the northern lights season is October to March. Rent a car in Leknes.", "Lofoten"),
    ("Ikea Billy", "The Ikea Billy bookcase sags in the middle shelf. Add a support or swap in a thicker board.", "Billy bookcase sagging"),
    ("Dyson", "The Dyson lost suction — the filter was clogged. Washed it, 24 hours to dry.", "Dyson suction"),
    ("Thermomix", "Ana swears by her Thermomix for risotto. Too expensive for how often I would use it.", "Thermomix"),
    ("Catan", "Catan with Leo's friends: they play with the seafarers expansion, the rules take an hour to explain.", "Catan seafarers"),
    ("Spotify Wrapped", "Spotify Wrapped says I listened to the same album 312 times. Fair.", "Spotify Wrapped"),
    ("Notion", "Work is moving the wiki from Confluence to Notion. The migration script loses the page comments.", "Notion migration"),
    ("Sonos", "The Sonos in the kitchen drops off the wifi at night. Give it a fixed address on the router.", "Sonos wifi"),
    ("Patagonia", "Patagonia will repair the zip on the rain jacket for free. Post it to the repair centre.", "Patagonia repair"),
    ("Chemex", "Chemex filters are out. The cheaper ones tear; buy the proper bonded ones.", "Chemex filters"),
    ("Wordle", "Got Wordle in two today: SLATE then SHALE.", "Wordle"),
    ("Etsy", "Ordered Mum's photo book cover from the Etsy shop in Leeds; it arrives on the 8th.", "Etsy order"),
    ("Anki", "Anki deck for Spanish verbs: 40 new cards a day is too many, drop to 15.", "Anki deck"),
    ("Vinted", "Sold the old winter coat on Vinted for 35. Post it before Thursday.", "Vinted sale"),
    ("Zwift", "Tried Zwift on the turbo trainer. Boring after 20 minutes, but good for rainy weeks.", "Zwift"),
    ("Lumix", "Sold the Lumix to the camera shop for 180 against the new lens.", "Lumix"),
    ("Marimekko", "Bought Marimekko fabric for the cushion covers, the poppy print, 2 metres.", "Marimekko fabric"),
    ("Feldenkrais", "First Feldenkrais class. Slow movements for the shoulders; felt looser afterwards.", "Feldenkrais class"),
    ("Bokashi", "Started a Bokashi bin for the kitchen scraps. Drain the liquid every two days.", "Bokashi bin"),
]
for name, text, question in NAMED:
    id = note("named", text)
    ask("named", question, {id: 2})

# --- paraphrase: described in other words ---------------------------------------------------------
PARAPHRASE = [
    ("The bathroom tap drips all night. Buy a new washer, 15 mm.", "leaking faucet fix"),
    ("Slugs ate every lettuce seedling overnight. Copper tape around the bed?", "garden pests destroyed my salad greens"),
    ("Slept five hours again and snapped at Sam in standup.", "exhausted and irritable with colleagues"),
    ("Felt anxious all afternoon without a clear reason. A walk helped more than scrolling.", "unexplained nervousness, what calmed it"),
    ("Sunday morning, coffee on the balcony, no plans. I want more mornings like this.", "peaceful weekend start I enjoyed"),
    ("The loaf came out dense — the starter wasn't active enough.", "bread that failed to rise"),
    ("Moved the emergency fund to a high-interest savings account, 4.1%.", "rainy day money earning better returns"),
    ("Spent way too much on takeaway this week.", "overspending on delivered food"),
    ("Lease ends in August. Start looking for flats near the park in June.", "finding somewhere new to rent"),
    ("Called Grandpa. He's lonely since the neighbours moved.", "elderly relative feeling isolated"),
    ("Leo and I argued about who does the dishes. Agreed on a rota.", "dispute over household chores"),
    ("Left knee twinged after ten kilometres on the river path.", "joint pain while jogging"),
    ("The car made a grinding noise when braking. Garage on Tuesday.", "vehicle squeals when stopping"),
    ("Painted the office wall dark green. The room feels smaller but calmer.", "redecorated workspace colour"),
    ("Dentist says I grind my teeth at night. Mouth guard fitted next month.", "clenching jaw while asleep"),
    ("Got the promotion! Senior engineer from January.", "career step up at work"),
    ("The boiler pressure dropped to 0.5 again. Topped it up to 1.5 bar.", "heating system losing water"),
    ("Mum's scan results came back clear. Huge relief.", "good medical news about my mother"),
    ("The neighbours' dog barks from six every morning.", "noisy pet next door wakes me"),
    ("Cancelled the gym membership; I only went twice since spring.", "stopped paying for fitness club"),
    ("Forgot my passport at home and nearly missed the flight.", "travel document left behind"),
    ("Our flat was burgled while we were at the cinema. Police came at midnight.", "break-in at home"),
    ("Locked myself out and waited two hours for the locksmith.", "stuck outside without keys"),
    ("Won the pub quiz with Ana and Tom. Prize: a bottle of gin.", "trivia night victory"),
    ("The landlord is raising the rent by nine percent in August.", "housing costs going up"),
    ("Broke my phone screen on the stairs.", "cracked mobile display"),
    ("Fox cubs in the garden at dusk, three of them.", "wild animals with babies outside"),
    ("Our power went out for six hours in the storm.", "electricity cut during bad weather"),
    ("Spilled red wine on the new rug. Salt and cold water took most of it out.", "stain on the carpet"),
    ("Finally booked the eye test. My glasses are two years old.", "vision check appointment"),
    ("Quit sugar in coffee after twenty years.", "cutting sweetener from drinks"),
    ("Ran out of petrol on the motorway. Walked to the services.", "empty fuel tank on highway"),
    ("Lost my wallet at the market; someone handed it in.", "missing purse returned"),
    ("The washing machine leaks from the door seal.", "laundry appliance dripping"),
    ("Stayed up until three finishing the novel.", "reading late into the night"),
    ("Hay fever is awful this week; antihistamines barely help.", "pollen allergy symptoms"),
    ("Wasps built a nest under the shed roof.", "insects made a home in the outbuilding"),
    ("The flight was delayed four hours; claimed compensation.", "late plane refund"),
    ("Asked for a pay rise; the answer is maybe in April.", "salary increase request"),
    ("Fell off the bike on the wet cobbles. Grazed elbow, bent handlebar.", "cycling crash injury"),
    ("Snow closed the schools; worked from the kitchen with Leo's kids around.", "winter weather shut classrooms"),
    ("My cousin is getting married in Lisbon next June.", "family wedding abroad"),
    ("Donated two bags of clothes to the charity shop.", "gave away garments"),
    ("Insomnia again: awake from 3 until 5 thinking about the deadline.", "trouble sleeping because of work pressure"),
    ("Tried cold showers for a week. Awake, but miserable.", "chilly morning wash experiment"),
    ("Our internet has been down since yesterday; the router blinks red.", "broadband outage"),
    ("Jury duty summons for February.", "court service letter"),
    ("Sold the sofa to a student for forty quid.", "got rid of the couch"),
    ("Volunteered at the food bank on Saturday morning.", "charity help sorting groceries"),
    ("Started therapy: weekly sessions on Thursdays.", "seeing a counsellor"),
    ("Our train was cancelled so we shared a taxi to the airport.", "rail service scrapped, cab instead"),
    ("Measured the living room: 4.2 by 3.6 metres, for the new carpet.", "lounge dimensions for flooring"),
]
STOP = set("""a about above after again all am an and any are as at be because been before being below between both but by can
could did do does doing down during each few for from further had has have having he her here hers him his how i if in into is it
its just me more most my no nor not now of off on once only or other our out over own same she should so some such than that the
their them then there these they this those through to too under until up very was we were what when where which while who whom why
will with would you your what's i'm i've don't won't it's""".split())


def stems(text):
    return {w[:5] for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP and len(w) > 1}


for text, question in PARAPHRASE:
    shared = stems(text) & stems(question)
    assert not shared, f"paraphrase shares {shared}: {question!r}"
    id = note("para", text)
    ask("paraphrase", question, {id: 2})

# --- time: three decisions on a project in three months; "when did I last" recurring things -------
PROJECTS = [
    ("roof", [(2, "Roof: the surveyor says the flashing round the chimney is the leak, not the tiles. Get three quotes."),
              (3, "Roof: decided on Kowalski Roofing — mid-price quote, they can start in May, ten-year guarantee."),
              (6, "Roof: decided to add gutter guards while the scaffolding is up, another 300.")]),
    ("boiler", [(1, "Boiler: decided to repair rather than replace this winter; the engineer replaced the diverter valve."),
                (4, "Boiler: decided to get quotes for a heat pump instead of a new gas boiler."),
                (9, "Boiler: decided to stay with gas one more year; the heat pump grant was refused.")]),
    ("kitchen", [(1, "Kitchen: decided on the sage green cabinet doors and oak worktop."),
                 (5, "Kitchen: decided to keep the old sink after all and spend the money on a better extractor."),
                 (8, "Kitchen: decided to tile only behind the hob, not the whole wall.")]),
    ("garden fence", [(3, "Garden fence: decided to split the cost of the new fence with the neighbours at number 12."),
                      (4, "Garden fence: decided on feather-edge boards rather than panels, they last longer."),
                      (7, "Garden fence: decided to stain the fence dark brown, two coats.")]),
    ("car", [(2, "Car: decided to keep the old Golf another year; the MOT passed with two advisories."),
             (6, "Car: decided to look at electric cars seriously; test drive booked."),
             (10, "Car: decided against the electric car for now — no charging at the flat.")]),
    ("holiday", [(1, "Holiday: decided on Portugal for the summer — Porto then the Douro valley."),
                 (3, "Holiday: decided to take the train to Porto instead of flying the last leg."),
                 (5, "Holiday: decided to shorten the trip to ten days so Leo can come.")]),
    ("pension", [(2, "Pension: decided to raise my contribution to 8 percent from April."),
                 (5, "Pension: decided to consolidate the two old workplace pensions into one."),
                 (11, "Pension: decided to move the pension into the lower-fee index fund.")]),
    ("running club", [(1, "Running club: decided to join the Tuesday group runs for the winter."),
                      (4, "Running club: decided to volunteer as a pacer for the 10k group."),
                      (8, "Running club: decided to skip the autumn league and rest my knee.")]),
    ("bathroom", [(2, "Bathroom: decided to regrout the shower instead of retiling."),
                  (7, "Bathroom: decided to replace the extractor fan, the mould keeps coming back."),
                  (10, "Bathroom: decided to swap the bath for a walk-in shower next year.")]),
    ("team offsite", [(3, "Team offsite: decided on Bristol, two days, no laptops in the afternoon sessions."),
                      (5, "Team offsite: decided the theme is reliability — every team brings one incident."),
                      (9, "Team offsite: decided to make it a yearly thing and rotate the city.")]),
    ("side project", [(1, "Side project: decided to build the memo digest app in Swift, server first."),
                      (6, "Side project: decided to drop the web version and ship only the iPhone app."),
                      (10, "Side project: decided to open-source the server part.")]),
    ("wedding speech", [(4, "Wedding speech: decided to keep it under five minutes with one story about the camping trip."),
                        (5, "Wedding speech: decided to cut the camping story and start with the proposal instead."),
                        (6, "Wedding speech: decided to practise it on Leo on Sunday.")]),
    ("mortgage", [(3, "Mortgage: decided to fix for five years rather than two."),
                  (8, "Mortgage: decided to overpay 200 a month while the rate is low."),
                  (11, "Mortgage: decided to stop overpaying and build up savings first.")]),
    ("job offer", [(6, "Job offer: decided to talk to my manager before answering the recruiter."),
                   (7, "Job offer: decided to turn down the fintech offer; the commute would kill me."),
                   (9, "Job offer: decided to ask for a four-day week instead.")]),
    ("allotment", [(2, "Allotment: decided to put my name on the waiting list for the allotment by the canal."),
                   (7, "Allotment: decided to share a plot with Ana rather than wait another year."),
                   (10, "Allotment: decided to plant garlic and broad beans over winter.")]),
    ("spare room", [(1, "Spare room: decided to turn it into an office with a sofa bed for guests."),
                    (4, "Spare room: decided on the narrow desk under the window."),
                    (9, "Spare room: decided to rent it to a lodger on weekdays.")]),
    ("piano lessons", [(2, "Piano lessons: decided to go weekly instead of fortnightly."),
                       (6, "Piano lessons: decided to do the grade 4 exam in November."),
                       (9, "Piano lessons: decided to drop the exam and just play for fun.")]),
]
for topic, steps in PROJECTS:
    ids = []
    for month, text in steps:
        id = note("project", text, date=day(month))
        ids.append((month, id))
        # Working notes on the same project in other months (noise for the time questions).
    for _ in range(2):
        month = RNG.choice([m for m in range(1, 12) if m not in {s[0] for s in steps}])
        ids.append((None, note("project", f"{topic.capitalize()}: " + RNG.choice([
            "no news this week, still waiting to hear back.", "rang them again, they will call on Monday.",
            "looked at a few options online but nothing decided.", "talked it over with Leo, no conclusion.",
            "put it on the list for the weekend.", "need to read the small print before anything else."]), date=day(month))))
    for month, id in ids:
        if month is not None:
            ask("time", f"what did I decide about the {topic} in {MONTHS[month - 1]}", {id: 2})
    ask("several", f"what do I know about the {topic}", {id: (2 if m else 1) for m, id in ids})

RECURRING = [
    ("haircut", "when did I last get a haircut", ["Haircut at Marco's, shorter at the sides.", "Haircut today, same as last time.",
                                                   "Got a haircut — Marco's was closed so went to the place by the station.",
                                                   "Haircut and beard trim at Marco's."]),
    ("dentist", "when did I last see the dentist", ["Dentist check-up: one small filling needed.", "Dentist: the filling is done, no pain.",
                                                    "Dentist check-up, all fine, see you in six months."]),
    ("blood donation", "when did I last give blood", ["Gave blood at the town hall session. Iron level fine.",
                                                      "Gave blood again, they gave me a badge for ten donations.",
                                                      "Gave blood; felt faint afterwards, should have eaten more."]),
    ("car service", "when was the car last serviced", ["Car serviced at the garage on Mill Road: oil, filters, wipers.",
                                                        "Car serviced — new brake pads at the front.", "Car service and MOT done together this time."]),
    ("boiler service", "when was the boiler last serviced", ["Annual boiler service done, the engineer cleaned the condensate trap.",
                                                              "Boiler serviced; he says the expansion vessel needs recharging soon."]),
    ("long run", "when did I last do a long run", ["Long run: 18 km along the canal, easy pace.", "Long run: 21 km, the furthest since the injury.",
                                                    "Long run cut short at 12 km, calf tight.", "Long run: 16 km with the club."]),
    ("visit to Grandpa", "when did I last visit Grandpa", ["Visited Grandpa; we did the crossword together.",
                                                           "Visited Grandpa at the home, brought him the photo album.",
                                                           "Visited Grandpa for his birthday lunch."]),
    ("sourdough bake", "when did I last bake sourdough", ["Baked sourdough: good oven spring, open crumb.", "Baked sourdough with 20% rye.",
                                                           "Baked sourdough, slightly underproofed."]),
    ("window cleaner", "when did the window cleaner last come", ["Window cleaner came, paid 25 cash.", "Window cleaner came early; inside too this time."]),
    ("call with Mum", "when did I last call Mum", ["Called Mum — she is planning the garden for spring.", "Called Mum, she sounded tired.",
                                                   "Called Mum about Christmas plans."]),
    ("yoga class", "when did I last go to yoga", ["Yoga class: hips so stiff.", "Yoga: held crow pose for the first time!", "Yoga with the new teacher, slower pace."]),
    ("bike repair", "when did I last take the bike to the shop", ["Bike shop: new chain and cassette.", "Bike shop fixed the gears, 40."]),
    ("eye test", "when did I last have my eyes tested", ["Eye test: prescription slightly stronger.", "Eye test at the optician, no change."]),
    ("cinema", "when did I last go to the cinema", ["Cinema: the new Villeneuve, too long but beautiful.", "Cinema with Ana, a silly comedy.",
                                                    "Cinema on my own on a Tuesday afternoon. Bliss."]),
    ("book club", "when was the last book club", ["Book club: nobody finished the book.", "Book club at Tom's: we argued about the ending.",
                                                  "Book club picked the next three books."]),
    ("meal prep", "when did I last meal prep", ["Meal prep Sunday: chickpea curry and rice for five days.", "Meal prep: lentil soup and roast veg.",
                                                "Meal prep: chilli, froze half."]),
]
for topic, question, texts in RECURRING:
    dates = sorted(any_day() for _ in texts)
    ids = [note("recurring", text, date=date) for text, date in zip(texts, dates)]
    ask("time", question, {id: (2 if i == len(ids) - 1 else 1) for i, id in enumerate(ids)})
    ask("several", f"everything about {topic}", {id: 2 for id in ids})

# --- several: topics of four to six notes -----------------------------------------------------------
TOPICS = {
    "sourdough starter": ["Sourdough starter named Bubbles. Feed 1:1:1 at 9 pm.", "The starter smells of nail polish — it is hungry, feed twice a day.",
                          "Starter doubled in four hours today, ready to bake.", "Put the starter in the fridge for the holiday; feed weekly."],
    "half marathon training": ["Sixteen weeks to the Lisbon half marathon. Long run on Sundays, intervals on Wednesdays.",
                               "Intervals: 6 x 800 m at 4:10 per km.", "Half marathon taper week: easy runs only.",
                               "Finished the Lisbon half in 1:52, negative split.", "Half marathon recovery: a week off, then easy."],
    "learning Spanish": ["Spanish lesson: the subjunctive after 'espero que'.", "Practised Spanish conversation with Marta for 30 minutes.",
                         "Spanish podcast on the commute, understood most of it.", "Spanish: I freeze when I have to use the past tense."],
    "the migration to Kubernetes": ["Kickoff for moving the billing service to Kubernetes.", "Kubernetes cutover rehearsal failed on replication lag.",
                                    "Billing on Kubernetes is live. p99 latency down from 480 ms to 210 ms.",
                                    "Kubernetes migration retro: feature flags saved us, on-call was unclear."],
    "the balcony garden": ["Balcony garden: herbs in the long planter, chillies in pots.", "Balcony: the wind knocked the chilli pots over again.",
                           "Balcony garden: the basil bolted in the heat.", "Balcony: put up the trellis for the sweet peas."],
    "money and budget": ["Monthly budget: rent 1200, groceries 450, transport 90, savings 600.", "Budget review: eating out is the leak, 310 last month.",
                         "Budget: cancelled three subscriptions I forgot about.", "Budget for the holiday: 1,500 all in."],
    "Mum's 70th birthday": ["Mum turns 70 on 12 March. Book the restaurant by the harbour.", "Mum's 70th: Leo is making the photo book.",
                            "Mum's 70th: the restaurant can seat twenty, menu chosen.", "Mum's birthday dinner was lovely; she cried at the photo book."],
    "the memo digest app": ["App idea: turn voice memos into a weekly digest of what I was thinking about.",
                            "Memo digest app: group memos by topic with embeddings.", "Names for the memo digest app: Murmur, Echo Notes, Weekly Mind.",
                            "Memo digest app: TestFlight build out to five friends."],
    "sleep": ["Sleep: in bed by 11, no phone after 10, woke rested.", "Sleep tracker says four wake-ups a night.",
              "Sleep better with the window open and the heating off.", "Bad sleep again; too much coffee after lunch."],
    "the book club": ["Book club picked Piranesi for October.", "Book club: Ana hosts in November, bring dessert.",
                      "Book club rules: finish it or at least skim the end."],
    "my knee injury": ["Physio: the knee pain is IT band tightness. Foam roller every evening.", "Knee: clamshells and side planks daily.",
                       "Knee held up for 15 km, first time since the injury.", "Knee twinges on downhills still."],
    "interview preparation": ["Interview prep: B-trees and why databases use high fan-out.", "Interview prep: system design of a URL shortener.",
                              "Interview prep: practised behavioural questions with Tom.", "Interview prep: review consistent hashing."],
    "the flat move": ["Flat move: lease ends in August, start looking in June.", "Flat move: viewed two flats by the park; the second has light.",
                      "Flat move: deposit paid, keys on 1 August.", "Flat move: booked the van and two friends for Saturday."],
    "on-call": ["On-call week: paged at 3 am for a full disk.", "On-call: wrote the runbook for the queue backlog alert.",
                "On-call handover: two noisy alerts need tuning.", "On-call: quiet week, only one page."],
    "photography": ["Photography walk at golden hour by the docks.", "Photography: shoot in aperture priority, f/8 for street.",
                    "Photography: printed six photos for the hallway.", "Photography club theme this month is reflections."],
    "therapy": ["Therapy: we talked about saying no without guilt.", "Therapy homework: notice when I catastrophise.",
                "Therapy: the link between work stress and my sleep."],
    "Christmas plans": ["Christmas: at Mum's this year, Leo's family on Boxing Day.", "Christmas presents list: Mum a scarf, Grandpa a jigsaw.",
                        "Christmas: book the train early, prices double in December.", "Christmas dinner: I'm doing the nut roast."],
    "the car": ["Car insurance renews in March; shop around.", "Car: the tyre pressure light is on again.", "Car: the parking permit expires in June."],
}
for topic, texts in TOPICS.items():
    ids = [note("topic", text) for text in texts]
    ask("several", f"what do I know about {topic}", {id: 2 for id in ids})

# --- people: a fact about each, and notes that only mention them -----------------------------------------
PEOPLE = [
    ("Priya", "Priya is moving to Berlin in the spring for the platform team job.", "where is Priya moving"),
    ("Tomasz", "Tomasz recommended the climbing gym on Dock Street, bouldering on Thursdays.", "what did Tomasz recommend"),
    ("Dr. Okafor", "Dr. Okafor says no downhill running for two weeks and foam rolling every evening.", "what did Dr. Okafor tell me to do"),
    ("Siobhan", "Siobhan's daughter is called Niamh; she starts school in September.", "name of Siobhan's daughter"),
    ("Marta", "Marta offered to swap Spanish for English conversation, Wednesdays at the library.", "Marta's offer"),
    ("Leo", "Leo is allergic to cashews — careful with the curry paste.", "what is Leo allergic to"),
    ("Ana", "Ana is vegan; make her a separate risotto without butter.", "what does Ana eat"),
    ("Grandpa", "Grandpa wants his war medals framed for the hallway.", "what does Grandpa want done with his medals"),
    ("Sam", "Sam is leaving the team at the end of March for a startup.", "when is Sam leaving"),
    ("Kenji", "Kenji lent me his tent for the camping trip; give it back dry.", "what did Kenji lend me"),
    ("Fatima", "Fatima's birthday is 3 July; she likes gin and gardening books.", "Fatima's birthday present ideas"),
    ("Jonas", "Jonas owes me 60 for the concert tickets.", "how much does Jonas owe me"),
    ("Elena", "Elena is the new manager from April; she wants weekly one-to-ones.", "Elena's plans as manager"),
    ("Mr. Patel", "Mr. Patel downstairs hears our washing machine at night; run it before ten.", "Mr. Patel's complaint"),
    ("Chloe", "Chloe got into the master's in Edinburgh, starts in the autumn.", "Chloe's news"),
    ("Rafael", "Rafael fixes bikes on Saturdays at his garage, cash only.", "Rafael bike repair"),
    ("Aunt Rosa", "Aunt Rosa's lasagne recipe: béchamel with nutmeg, six layers, rest it for 20 minutes.", "Aunt Rosa's lasagne"),
    ("Ingrid", "Ingrid runs the Thursday pottery class; the kiln day is Sunday.", "when is Ingrid's kiln day"),
    ("Mateo", "Mateo is the plumber who fixed the boiler pipe; his number is on the fridge.", "who is Mateo"),
    ("Hannah", "Hannah had twins in May, Ada and Ezra.", "Hannah's babies"),
    ("Oliver", "Oliver's band plays at the Half Moon on the 14th.", "when is Oliver's gig"),
    ("Yusuf", "Yusuf mentors me on system design every other Monday.", "Yusuf mentoring"),
    ("Dad", "Dad's blood pressure is up; the doctor changed his tablets.", "Dad's health"),
    ("Beatriz", "Beatriz from Lisbon is visiting in June; she can stay in the spare room.", "when is Beatriz visiting"),
    ("Gareth", "Gareth sold me his old road bike for 300.", "what did I buy from Gareth"),
    ("Nadia", "Nadia is organising the charity 5k in October and needs marshals.", "Nadia's charity run"),
    ("Uncle Pete", "Uncle Pete's allotment has too many courgettes; he left a bag on the step.", "Uncle Pete's courgettes"),
    ("Lucia", "Lucia recommended the Basque cheesecake at the new bakery on Elm Road.", "what did Lucia recommend"),
    ("Ben", "Ben is the landlord's agent; call him about the damp in the bedroom.", "who do I call about the damp, Ben?"),
    ("Isla", "Isla from work runs the reading group on distributed systems.", "Isla's reading group"),
    ("Wei", "Wei taught me to make dumplings: the pleats go one way only.", "Wei's dumplings"),
    ("Carmen", "Carmen is selling her piano for 400 — upright, needs tuning.", "Carmen's piano"),
    ("Dmitri", "Dmitri's team owns the payments API; ask him about idempotency keys.", "Dmitri payments API"),
    ("Zara", "Zara is getting married in Marrakech in April; flights booked.", "Zara's wedding"),
    ("Luca", "Luca recommends the Dolomites in late June, before the crowds.", "Luca's advice on the Dolomites"),
    ("Freya", "Freya's cat Pickle needs feeding while she's away 10 to 17 August.", "Freya's cat"),
    ("Ahmed", "Ahmed the electrician quoted 450 to rewire the kitchen sockets.", "Ahmed's quote"),
    ("Sofia", "Sofia has a spare ticket for the opera on Friday.", "Sofia's spare ticket"),
    ("Tom", "Tom is training for an Ironman in Austria next summer.", "what is Tom training for"),
    ("Noor", "Noor moved to Manchester for the hospital job.", "where did Noor move"),
    ("Hugo", "Hugo runs the wine shop; he put aside the Rioja for Mum's birthday.", "Hugo wine for Mum"),
    ("Maya", "Maya's startup raised its seed round; she's hiring backend engineers.", "Maya's startup hiring"),
    ("Pavel", "Pavel lent me the book on stoicism; he wants it back by Christmas.", "Pavel's book"),
    ("Greta", "Greta from the running club does sports massage, 40 for an hour.", "Greta sports massage"),
    ("Kwame", "Kwame is the best person to ask about Kafka tuning.", "Kwame Kafka"),
    ("Esther", "Esther, the neighbour at number 12, has our spare key.", "who has the spare key, Esther?"),
    ("Ivan", "Ivan is getting divorced; be gentle and don't ask about it at the party.", "how is Ivan doing"),
    ("Mei", "Mei's restaurant opens on 2 May on the high street; dumplings and noodles.", "Mei's restaurant opening"),
    ("Arjun", "Arjun recommended the mechanical keyboard with brown switches.", "Arjun keyboard recommendation"),
    ("Lena", "Lena can't come to the dinner party; her flight lands at midnight.", "why can't Lena come"),
]
MENTIONS = ["Coffee with {n}, mostly talked about work.", "Bumped into {n} at the station.", "{n} sent a funny video.",
            "Quick call with {n}, nothing much new.", "Lunch with {n} at the noodle place.", "{n} liked the photo from the weekend.",
            "Walked home with {n} after the meeting.", "{n} says hi to everyone.", "Texted {n} happy new year.",
            "Saw {n} at the supermarket; we should meet properly.", "{n} was in the meeting but quiet.", "Played tennis with {n}, lost 6-3."]
for name, text, question in PEOPLE:
    id = note("person", text)
    rels = {id: 2}
    for template in RNG.sample(MENTIONS, RNG.randint(2, 4)):
        note("mention", template.format(n=name))
    ask("people", question, rels)

# --- chatty: short message-like notes --------------------------------------------------------------
CHATTY = [
    ("booked ferro's for 8 fri", "dinner reservation friday"),
    ("omw, 10 min. order me the usual", "running late to meet"),
    ("can u grab oat milk + bin bags", "shopping for milk and bags"),
    ("parcel at the post office, need ID", "collect parcel from post office"),
    ("kids' party sat 2pm, bring a present under 10", "birthday party present budget"),
    ("plumber coming btwn 8-12 tues", "when is the plumber coming"),
    ("gate code 4471", "gate code"),
    ("wifi pw at mum's: sunflower22", "mum's wifi password"),
    ("remind me: bins out wed night", "bin day"),
    ("train 7:42 plat 3", "train time and platform"),
    ("locker 118 at the gym", "gym locker number"),
    ("ana's new number 07700 900461", "Ana's phone number"),
    ("tickets in email, seats F12 F13", "seat numbers for the show"),
    ("vet appt thurs 4:15 for the cat's jabs", "cat vaccination appointment"),
    ("meeting moved to 3, room Orion", "which room is the meeting in"),
    ("dinner at tom's, bring dessert", "what to bring to Tom's"),
    ("hotel conf number HX-5521", "hotel confirmation number"),
    ("car parked level 4 bay 27", "where did I park"),
    ("dentist moved to 9 mon", "dentist appointment time"),
    ("nadia: marshal point 3 at 8am sun", "where am I marshalling for Nadia"),
    ("leo's flight lands 22:10 T2", "when does Leo land"),
    ("pick up dry cleaning b4 sat", "dry cleaning pickup"),
    ("tap guy says 85 + parts", "cost of fixing the tap"),
    ("book club moved to the 19th", "book club date"),
    ("ran 5k in 24:30 pb!!", "personal best 5k time"),
    ("bake sale thurs, 2 dozen cupcakes", "how many cupcakes for the bake sale"),
    ("grandpa's home visiting hrs 2-5", "visiting hours at Grandpa's home"),
    ("ferry 9am, be there 8:30", "ferry departure"),
    ("door code for the office 2580#", "office door code"),
    ("the blue folder is in the car boot", "where is the blue folder"),
    ("recycling goes out every other mon", "recycling collection"),
    ("got the job!!! start 1st", "new job start date"),
    ("sofia: opera fri 7:30, meet at the bar", "meeting Sofia at the opera"),
    ("kenji tent back by sun pls", "return Kenji's tent"),
    ("rent up to 1310 from aug", "new rent amount"),
    ("netflix renews 14th, cancel?", "streaming subscription renewal"),
    ("heating engineer wed 10am", "heating engineer visit"),
    ("quiz team name: the know-it-owls", "pub quiz team name"),
    ("spare key under the blue pot", "where is the spare key hidden"),
    ("matinee sun 2:30 row G", "Sunday matinee seats"),
    ("swim lesson moved to 6pm", "swimming lesson time"),
    ("passport renewal sent, 3 wks", "passport renewal"),
    ("taxi booked 5am for the airport", "airport taxi"),
    ("bday cake: lemon, no nuts", "birthday cake flavour"),
    ("football 5-a-side tues 8, pitch 2", "five-a-side football"),
    ("bring the hdmi cable to the offsite", "cable for the offsite"),
    ("haircut moved to 11", "haircut time"),
    ("lunch w/ maya 12:30, the ramen place", "lunch with Maya"),
    ("electric bill 148 this qtr, ouch", "electricity bill this quarter"),
    ("zara's hen do 15 mar, brighton", "Zara's hen party"),
    ("post the vinted coat b4 thurs", "send the coat I sold"),
    ("call the council re: parking permit", "parking permit council"),
]
for text, question in CHATTY:
    id = note("chat", text)
    ask("chatty", question, {id: 2})

# --- everyday notes around them ---------------------------------------------------------------------
MOODS = ["Tired today.", "Good energy this morning.", "A flat sort of day.", "Felt scattered, too many tabs open.", "Calm, for once.",
         "Grumpy until lunch.", "Cheerful for no reason.", "Restless in the evening.", "Slow start, better afternoon.", "Content."]
DOINGS = ["Worked through the backlog and cleared twelve tickets.", "Long meeting about the roadmap, not much decided.",
          "Walked to work along the river.", "Cooked pasta with whatever was in the fridge.", "Tidied the desk and sorted receipts.",
          "Read for an hour before bed.", "Cleaned the bathroom and changed the sheets.", "Did the weekly shop at the big supermarket.",
          "Stretched for twenty minutes after work.", "Watched two episodes of the detective series.", "Wrote emails most of the morning.",
          "Code review took the whole afternoon.", "Pair programmed on the search feature.", "Fixed a flaky test in the pipeline.",
          "Sorted the laundry, ironed shirts.", "Answered messages and paid two bills.", "Had soup for lunch at my desk.",
          "Cycled to the shops for bread.", "Planned next week in the notebook.", "Listened to a podcast about history.",
          "Team lunch at the Thai place.", "Sprint planning ran over by an hour.", "Demo went fine, a few questions about the dashboard.",
          "Swapped the winter duvet for the light one.", "Watered the houseplants.", "Called the bank about a card payment."]
WEATHER = ["Rain all day.", "Cold and bright.", "Grey and windy.", "Warm enough for the balcony.", "Foggy morning.", "Hail at lunchtime.",
           "First frost.", "Sunny but chilly.", "Muggy and close.", "Drizzle on and off."]
THOUGHTS = ["Should drink more water.", "Need to call the bank back.", "Remember to back up the laptop.", "Think about what I want from next year.",
            "Too much screen time lately.", "Be kinder to myself about the small stuff.", "Want to learn to draw.", "Plan a weekend away.",
            "The evenings are drawing in.", "Try to read instead of scrolling.", "Should stretch more.", "Keep Sundays free."]
MEETINGS = ["Standup: nothing blocked.", "Retro: more time for testing next sprint.", "1:1: talked about goals for the quarter.",
            "Planning: the search work slips a week.", "All-hands: new office opens in spring.", "Design review for the export feature.",
            "Incident review: the cache expiry was too short.", "Hiring panel for the frontend role."]


def everyday():
    kind = RNG.random()
    if kind < 0.5:
        parts = [RNG.choice(MOODS), RNG.choice(DOINGS), RNG.choice(WEATHER)]
        if RNG.random() < 0.5:
            parts.append(RNG.choice(THOUGHTS))
        RNG.shuffle(parts)
        return " ".join(parts)
    if kind < 0.75:
        return RNG.choice(MEETINGS) + " " + RNG.choice(DOINGS)
    if kind < 0.9:
        return RNG.choice(DOINGS) + " " + RNG.choice(THOUGHTS)
    return RNG.choice(WEATHER) + " " + RNG.choice(MOODS)


# Weekly reviews: long notes with one fact after the first 256 tokens. Their questions are
# "people" and "named" ones: a name finds them by keyword; only a chunked embedding sees them.
BURIED = [
    ("people", "Pilar", "Pilar says the flat upstairs is coming up for sale in January; the owners want a quick sale.", "Pilar's news about the flat upstairs"),
    ("people", "Rohan", "Rohan can lend us his trailer for the allotment shed if we pick it up before nine.", "Rohan's trailer"),
    ("people", "Agnes", "Agnes from the choir is retiring from the library and moving to the coast.", "Agnes retiring"),
    ("people", "Tariq", "Tariq recommended a tax adviser for the side project income, Jenkins and Co.", "Tariq tax adviser"),
    ("named", "Velux", "The Velux window in the loft leaks when the wind is from the west; reseal the flashing kit.", "Velux window leak"),
    ("named", "Hue", "The Hue bulbs in the hallway flicker since the firmware update; roll back or replace the bridge.", "Hue bulbs flicker"),
    ("named", "Shimano", "The Shimano brake levers feel spongy; bleed the hydraulics or take it to Rafael.", "Shimano brakes"),
    ("named", "Bosch", "The Bosch dishwasher shows E24: the drain hose is kinked behind the unit.", "Bosch dishwasher E24"),
]
for kind, name, fact, question in BURIED:
    body = " ".join(everyday() for _ in range(16))
    id = note("review", f"Weekly review. {body}\n\n{fact}", title="Weekly review")
    ask(kind, question, {id: 2})

while len(notes) < 2100:
    note("day", everyday())

# --- write ----------------------------------------------------------------------------------------
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "qrels"), exist_ok=True)
ordered = sorted(notes.items(), key=lambda item: item[1][2])
with open(os.path.join(here, "corpus.jsonl"), "w") as f:
    for id, (title, text, date) in ordered:
        f.write(json.dumps({"_id": id, "title": title, "text": text,
                            "metadata": {"date": date.strftime("%Y-%m-%dT%H:%M:%SZ")}}, ensure_ascii=False) + "\n")
with open(os.path.join(here, "queries.jsonl"), "w") as f:
    for id, (kind, text, _) in questions.items():
        f.write(json.dumps({"_id": id, "text": text, "metadata": {"kind": kind, "asked": NOW.strftime("%Y-%m-%dT%H:%M:%SZ")}},
                           ensure_ascii=False) + "\n")
# Half of each kind to tune on (dev), the other half to report (test): alternate questions.
splits = {"dev": [], "test": []}
counts = {}
for id, (kind, _, rels) in questions.items():
    counts[kind] = counts.get(kind, 0) + 1
    for doc, score in rels.items():
        assert doc in notes, doc
        splits["dev" if counts[kind] % 2 else "test"].append(f"{id}\t{doc}\t{score}")
for split, rows in splits.items():
    with open(os.path.join(here, "qrels", f"{split}.tsv"), "w") as f:
        f.write("query-id\tcorpus-id\tscore\n" + "\n".join(rows) + "\n")
assert all(n >= 50 for n in counts.values()), counts
print(f"{len(notes)} notes, {len(questions)} questions: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
