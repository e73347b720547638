#!/usr/bin/env python3
"""Writes the labelled notes the thread and association thresholds are measured on
(`selene-bench --only thresholds`): corpus.jsonl, each note's id naming its topic ("garden-07").
The sentences below are written for this set; a note is one to three of its topic's sentences
(seeded, so every run writes the same file), as a person jots things over months. Topics sit
close on purpose where people's lives do (running and the physio; work and stress; money and
the flat move), so a threshold that is too low shows up as wrong joins."""
import json, os, random

TOPICS = {
    "garden": [
        "Started the tomato seeds indoors under the grow light.", "The seedlings are leggy, so I lowered the lamp.",
        "Mixed compost and topsoil for the raised bed.", "Aphids on the kale again; sprayed soapy water.",
        "Beans go along the fence this year, squash in the corner.", "First ripe tomato today, a little watery.",
        "The compost heap smells sour; it needs dry leaves.", "Slugs ate the lettuce overnight.",
        "Watered the beds before work, the soil was cracked.", "Pinched out the side shoots on the tomatoes.",
        "The basil bolted in the heat.", "Ordered garlic bulbs to plant in October.",
        "Mulched the strawberries with straw.", "The neighbour gave me courgette seedlings.",
        "Harvested enough beans to freeze a bag.", "Pruned the apple tree while it is dormant.",
    ],
    "migration": [
        "Kickoff for moving the billing service to Kubernetes.", "Priya owns the Helm charts, I own the database cutover.",
        "The cutover rehearsal failed on replication lag.", "Throttling the backfill kept the lag under two seconds.",
        "Feature flags let us roll back in minutes.", "Nobody owned on-call during the cutover weekend.",
        "Billing is live on the cluster; p99 latency halved.", "Wrote the runbook for the database failover.",
        "The staging cluster ran out of memory during load tests.", "Agreed to freeze billing deploys the week of the cutover.",
        "Postgres replica promoted cleanly in the second rehearsal.", "Need alerts on pod restarts before go-live.",
        "The migration retro is on Thursday.", "Moved the cron jobs into Kubernetes CronJobs.",
        "Helm chart values differ between staging and production.", "Dry run of the cutover went smoothly tonight.",
    ],
    "running": [
        "Long run of fourteen kilometres along the river.", "Intervals: six times eight hundred metres.",
        "Sixteen weeks of training left before the half marathon.", "Easy recovery jog, legs heavy.",
        "New running shoes with more cushioning.", "Tempo run at race pace felt controlled.",
        "Signed up for the Lisbon half marathon.", "Hill repeats in the park this morning.",
        "Carb loading before Sunday's long run.", "Ran a negative split for the first time.",
        "Parkrun personal best by forty seconds.", "Rest day, stretched and foam rolled.",
        "Training plan says eighteen kilometres this weekend.", "Ran in the rain, loved it.",
        "My watch says my cadence is too low.", "Race day plan: start slow, push after ten kilometres.",
    ],
    "physio": [
        "The physio says the knee pain is IT band tightness.", "Clamshells and foam roller every evening.",
        "No downhill running for two weeks, doctor's orders.", "Knee twinged again on the stairs.",
        "Booked another physio appointment for Tuesday.", "The ice pack helps with the swelling.",
        "Glute bridges to strengthen the hips.", "The knee felt fine after the short run.",
        "Physio taped my knee before the race.", "Pain in the outside of the knee after eight kilometres.",
        "Massage therapist found a knot in my calf.", "Stretching routine for the hamstrings.",
    ],
    "stress": [
        "Three deadlines on the same Friday and I can't think straight.", "Slept five hours again.",
        "Snapped at Sam in standup; I'm exhausted.", "I need to say no to the analytics request.",
        "Talked to my manager about the workload.", "Worked until midnight three days in a row.",
        "My shoulders are in knots from tension.", "Felt anxious all weekend about Monday.",
        "Took a proper lunch break and felt human again.", "Too many meetings, no time to do the work.",
        "Inbox at four hundred unread; overwhelmed.", "Meditated for ten minutes before work, it helped.",
    ],
    "reading": [
        "Finished The Dispossessed.", "Shevek's idea of freedom keeps coming back to me.",
        "Braiding Sweetgrass on reciprocity and the honorable harvest.", "Piranesi made me want to keep a journal of small wonders.",
        "Reading list: Piranesi, The Dispossessed, A Psalm for the Wild-Built.", "Started a biography of Ada Lovelace.",
        "The book club picked Middlemarch for next month.", "Underlined half of the chapter on attention.",
        "Couldn't put the novel down until two in the morning.", "Library hold finally came in.",
        "The essay collection is uneven but the last essay is wonderful.", "Audiobook on the commute, a mystery.",
        "Gave up on the thriller halfway, too predictable.", "Poetry before bed instead of the phone.",
    ],
    "money": [
        "Monthly budget: rent, groceries, transport and savings.", "Eating out is the leak, three hundred last month.",
        "Tax return due at the end of April.", "Need the pension contribution statement for the tax return.",
        "Moved the emergency fund to a high-interest account.", "Spent too much on takeaway this week.",
        "Cancelled two streaming subscriptions.", "Set up an automatic transfer to savings on payday.",
        "The energy bill went up again.", "Tracking every expense in a spreadsheet this month.",
        "Paid off the credit card in full.", "Comparing mortgage offers from two banks.",
    ],
    "home": [
        "The bookshelf in the hallway wobbles; anchor it to the wall.", "The bathroom tap drips at night.",
        "Lease ends in August; start looking for flats in June.", "Painted the office wall dark green.",
        "Viewed a two-bedroom flat near the park.", "The boiler made a banging noise again.",
        "Booked the movers for the last weekend of July.", "Need boxes and tape for packing.",
        "Landlord will fix the damp patch in the bedroom.", "Measured the sofa to check it fits through the new door.",
        "Decluttered the kitchen cupboards.", "New curtains make the living room warmer.",
    ],
    "family": [
        "Mum turns seventy in March; book the restaurant by the harbour.", "Called Grandpa, he's lonely since the neighbours moved.",
        "Leo and I argued about the dishes and agreed on a rota.", "Dinner for six on Saturday, Ana is vegan.",
        "Photo book for Mum's birthday, ask Leo for pictures.", "My sister is expecting a baby in May.",
        "Visited Grandpa and fixed his radio.", "Family video call on Sunday evening.",
        "Dad's knee surgery went well.", "Planning Christmas at my brother's house.",
        "Sent a card to my aunt for her retirement.", "Taught my niece to ride a bike.",
    ],
    "appidea": [
        "An app that turns voice memos into a weekly digest.", "Group the memos by topic with embeddings.",
        "Show which topics are growing week by week.", "Names for the digest app: Murmur, Echo Notes, Weekly Mind.",
        "The digest could be a private podcast.", "Prototype the memo transcription with whisper.",
        "Landing page first, to see if anyone wants the digest app.", "The digest app should work offline.",
        "Sketched the weekly digest screen on paper.", "Pricing idea: free for ten memos a week.",
    ],
}

COUNTS = {"garden": 24, "migration": 24, "running": 22, "physio": 14, "stress": 16, "reading": 18,
          "money": 16, "home": 16, "family": 16, "appidea": 12}


def build(out):
    rng = random.Random(20261125)
    notes = []
    for topic, sentences in TOPICS.items():
        for n in range(COUNTS[topic]):
            k = rng.choice([1, 2, 2, 3])
            notes.append({"_id": f"{topic}-{n:02d}", "title": "", "text": " ".join(rng.sample(sentences, k))})
    rng.shuffle(notes)  # the order they were written in
    with open(os.path.join(out, "corpus.jsonl"), "w") as f:
        for note in notes:
            f.write(json.dumps(note, ensure_ascii=False) + "\n")
    print(f"{len(notes)} notes in {len(TOPICS)} topics -> {out}/corpus.jsonl")


if __name__ == "__main__":
    build(os.path.dirname(os.path.abspath(__file__)))
