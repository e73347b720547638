#!/usr/bin/env python3
"""Writes the development set (BEIR layout) from the notes and questions below: corpus.jsonl,
queries.jsonl, qrels/test.tsv. A person's notes over a few months, and questions they would
ask of them: some name what they want (a keyword finds it), some only describe it (a paraphrase,
which embeddings find). Relevance: 2 the note answers it, 1 it is about it."""
import json, os

NOTES = {
    # Garden
    "g1": ("Tomato seedlings", "Started the San Marzano tomato seeds indoors under the grow light. Twelve cells, heat mat on."),
    "g2": ("", "The tomato seedlings are leggy — the grow light is too far away. Lowered it to five centimetres."),
    "g3": ("Raised bed soil", "Mixed compost, topsoil and vermiculite for the new raised bed. Roughly a third each."),
    "g4": ("", "Aphids all over the kale again. Sprayed soapy water; next time try ladybirds."),
    "g5": ("Garden plan", "Beans along the fence, squash in the corner bed, basil between the tomatoes to keep pests off."),
    "g6": ("", "First ripe tomato today! Sweet, a little watery. Water less once the fruit sets."),
    "g7": ("Compost", "The compost heap smells sour — too many grass clippings. Add dry leaves and turn it weekly."),
    "g8": ("", "Slugs ate every lettuce seedling overnight. Copper tape around the bed?"),
    # Work: migration project
    "w1": ("Kubernetes migration kickoff", "Kickoff for moving the billing service to Kubernetes. Priya owns the Helm charts, I own the database cutover."),
    "w2": ("", "Database cutover rehearsal failed: replication lag hit forty seconds during the billing backfill."),
    "w3": ("Migration retro", "What went well: feature flags let us roll back in minutes. What didn't: nobody owned on-call during the cutover weekend."),
    "w4": ("", "Priya suggested we throttle the backfill to a thousand rows a second. Lag stayed under two seconds."),
    "w5": ("", "Billing on Kubernetes is live. Latency p99 down from 480 ms to 210 ms."),
    # Work: stress and workload
    "s1": ("", "Three deadlines on the same Friday and a review I haven't started. I can't think straight."),
    "s2": ("Burnout check", "Slept five hours again. Snapped at Sam in standup. I need to say no to the analytics request."),
    "s3": ("", "Talked to my manager about the workload. We moved the analytics dashboard to next quarter. Feel lighter."),
    "s4": ("", "Worked until midnight for the third day in a row. My shoulders are in knots."),
    # Health / running
    "r1": ("Half marathon plan", "Sixteen weeks to the Lisbon half marathon. Long run on Sundays, intervals on Wednesdays."),
    "r2": ("", "Long run: 14 km along the river at an easy pace. Left knee twinged after 10 km."),
    "r3": ("Physio", "Dr. Okafor says the knee pain is IT band tightness. Foam roller every evening, clamshells, no downhill running for two weeks."),
    "r4": ("", "Intervals: 6 x 800 m at 4:10 per km. Legs heavy but the knee was fine."),
    "r5": ("Race day", "Finished the Lisbon half in 1:52. Negative split! Knee held up."),
    "r6": ("", "New running shoes — more cushioning, 8 mm drop. Feels like running on pillows."),
    # Reading
    "b1": ("Reading list", "Piranesi, The Dispossessed, Braiding Sweetgrass, A Psalm for the Wild-Built."),
    "b2": ("", "Finished The Dispossessed. Shevek's idea that freedom needs constant renewal keeps coming back to me."),
    "b3": ("Braiding Sweetgrass", "Kimmerer on reciprocity: taking only what is given, and giving something back. The chapter on the honorable harvest."),
    "b4": ("", "Piranesi made me want to keep a journal of small wonders, the way he catalogues the statues."),
    # Money
    "m1": ("Budget", "Monthly budget: rent 1200, groceries 450, transport 90, savings 600. Eating out is the leak — 310 last month."),
    "m2": ("Tax return", "Tax return due April 30. Need the P60, the pension contribution statement and the charity receipts."),
    "m3": ("", "Moved the emergency fund to a high-interest savings account, 4.1%."),
    "m4": ("", "Spent way too much on takeaway this week. Cook on Sundays for the whole week."),
    # Home
    "h1": ("Kitchen shelf", "The IKEA Kallax in the hallway wobbles. Need to anchor it to the wall with the brackets."),
    "h2": ("", "The bathroom tap drips at night. Buy a new washer, 15 mm."),
    "h3": ("Moving", "Lease ends in August. Start looking for flats near the park in June; two bedrooms so one can be an office."),
    "h4": ("", "Painted the office wall a dark green. It makes the room feel smaller but calmer."),
    # Family and friends
    "f1": ("Mum's birthday", "Mum turns 70 on 12 March. Book the restaurant by the harbour; ask Leo about a photo book."),
    "f2": ("", "Called Grandpa. He's lonely since the neighbours moved. Visit on the first weekend of the month."),
    "f3": ("", "Leo and I argued about who does the dishes. Agreed on a rota, we'll see."),
    "f4": ("Dinner party", "Dinner for six on Saturday: mushroom risotto, green salad, lemon tart. Ana is vegan — make her a separate risotto without butter."),
    # Ideas: side project
    "i1": ("App idea", "An app that turns voice memos into a weekly digest of what I was thinking about."),
    "i2": ("", "The digest app could group memos by topic with embeddings and show which topics are growing."),
    "i3": ("Name ideas", "Names for the memo digest app: Murmur, Echo Notes, Weekly Mind."),
    "i4": ("", "Idea: a bird-feeder camera that logs which species visit and when."),
    # Learning
    "l1": ("Spanish", "Spanish lesson: the subjunctive after 'espero que'. Espero que llueva mañana."),
    "l2": ("", "Practised conversation with Marta for 30 minutes. I freeze when I have to use the past tense."),
    "l3": ("Piano", "Piano: the left hand of the Satie Gymnopédie is finally smooth. Slow practice works."),
    "l4": ("", "Learned about B-trees for the interview prep: why databases use high fan-out to keep lookups to a few disk reads."),
    # Mood / reflection
    "e1": ("", "Sunday morning, coffee on the balcony, no plans. I want more mornings like this."),
    "e2": ("", "Felt anxious all afternoon without a clear reason. A walk helped more than scrolling."),
    "e3": ("Gratitude", "Grateful for: the neighbour who fixed my bike chain, a good book, the first warm evening."),
    "e4": ("", "I keep saying yes to things I don't want to do. Practise a polite no."),
    # Travel
    "t1": ("Porto trip", "Porto in May: train from Lisbon, two nights near Ribeira, port cellars in Gaia, the Livraria Lello early morning."),
    "t2": ("", "Packing list: rain jacket, walking shoes, adapter, the small camera."),
    "t3": ("", "Flights to Oslo for the conference are cheaper on Tuesday. Book before the end of the month."),
    # Cooking
    "c1": ("Sourdough", "Sourdough starter named Bubbles. Feed 1:1:1 at 9 pm, bake at 10 am next day."),
    "c2": ("", "The loaf came out dense — the starter wasn't active enough. Wait until it doubles."),
    "c3": ("Weeknight recipes", "Quick dinners: chickpea curry, pasta with lemon and peas, miso salmon with rice."),
    "c4": ("", "Ana's vegan lemon tart worked with coconut cream instead of butter."),
}

QUERIES = {
    # Named things: a keyword match finds them.
    "q01": ("San Marzano seedlings", {"g1": 2, "g2": 1}),
    "q02": ("What did Dr. Okafor say?", {"r3": 2}),
    "q03": ("Kubernetes billing cutover", {"w1": 2, "w2": 2, "w5": 1, "w3": 1}),
    "q04": ("Kallax", {"h1": 2}),
    "q05": ("Piranesi", {"b4": 2, "b1": 1}),
    "q06": ("tax return documents", {"m2": 2}),
    "q07": ("Porto itinerary", {"t1": 2}),
    "q08": ("sourdough starter feeding", {"c1": 2, "c2": 1}),
    "q09": ("Lisbon half marathon result", {"r5": 2, "r1": 1}),
    "q10": ("Satie", {"l3": 2}),
    "q11": ("names for the memo app", {"i3": 2, "i1": 1, "i2": 1}),
    "q12": ("Oslo flights", {"t3": 2}),
    # Described, not named: embeddings find them.
    "q13": ("times I felt overwhelmed by my job", {"s1": 2, "s2": 2, "s4": 2, "s3": 1}),
    "q14": ("pests eating my vegetables", {"g4": 2, "g8": 2, "g5": 1}),
    "q15": ("injury from jogging", {"r2": 2, "r3": 2}),
    "q16": ("how much money do I spend each month", {"m1": 2, "m4": 1}),
    "q17": ("what to cook for guests with dietary restrictions", {"f4": 2, "c4": 1}),
    "q18": ("moments I was happy and relaxed", {"e1": 2, "e3": 1, "s3": 1}),
    "q19": ("things that need fixing around the flat", {"h1": 2, "h2": 2}),
    "q20": ("learning a foreign language", {"l1": 2, "l2": 2}),
    "q21": ("family visits and celebrations", {"f1": 2, "f2": 2}),
    "q22": ("bread baking failure", {"c2": 2, "c1": 1}),
    "q23": ("what went wrong during the move to the new infrastructure", {"w2": 2, "w3": 2}),
    "q24": ("saying no to more work", {"s2": 2, "e4": 2, "s3": 1}),
    "q25": ("books about nature and giving back", {"b3": 2}),
    "q26": ("finding a new place to live", {"h3": 2}),
    "q27": ("startup ideas", {"i1": 2, "i4": 2, "i2": 1}),
    "q28": ("feeling nervous for no reason", {"e2": 2}),
    # Both: some words match, the rest is meaning.
    "q29": ("knee problems while training for the race", {"r2": 2, "r3": 2, "r4": 1, "r5": 1}),
    "q30": ("garden soil and compost mix", {"g3": 2, "g7": 2}),
    "q31": ("vegan dessert without butter", {"c4": 2, "f4": 1}),
    "q32": ("replication lag during the backfill", {"w2": 2, "w4": 2}),
    "q33": ("savings account interest", {"m3": 2, "m1": 1}),
    "q34": ("argument with Leo about chores", {"f3": 2}),
    "q35": ("grow light too far from the tomatoes", {"g2": 2, "g1": 1}),
    "q36": ("interview preparation on databases", {"l4": 2}),
    "q37": ("quick dinner recipes for weeknights", {"c3": 2}),
    "q38": ("what did I pack for the trip", {"t2": 2}),
    "q39": ("painting a room in the new office colour", {"h4": 2}),
    "q40": ("birthday plans for Mum", {"f1": 2}),
}

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "corpus.jsonl"), "w") as f:
    for id, (title, text) in NOTES.items():
        f.write(json.dumps({"_id": id, "title": title, "text": text}, ensure_ascii=False) + "\n")
with open(os.path.join(here, "queries.jsonl"), "w") as f:
    for id, (text, _) in QUERIES.items():
        f.write(json.dumps({"_id": id, "text": text}, ensure_ascii=False) + "\n")
with open(os.path.join(here, "qrels", "test.tsv"), "w") as f:
    f.write("query-id\tcorpus-id\tscore\n")
    for id, (_, rels) in QUERIES.items():
        for doc, score in rels.items():
            assert doc in NOTES, doc
            f.write(f"{id}\t{doc}\t{score}\n")
print(f"{len(NOTES)} notes, {len(QUERIES)} questions")
