import Fluent
import Foundation
import SQLKit

/// One runner per scheduled job among every `selene` process on one database (PostgreSQL lets
/// several share it): a job is run by whoever takes its lease, in one atomic statement — an
/// insert, or an update of a lease that has run out — and the others skip that round. The
/// briefing's job is named by its day, so each day's is written (and pushed) once; thread
/// maintenance holds its lease for one interval.
struct JobLease {
    let db: any Database

    /// Takes `job` for `owner` until `until`, if nobody holds it past `now`. True: run it.
    func claim(_ job: String, owner: String, now: Date, until: Date) async throws -> Bool {
        let row = try await db.sql.raw("""
            INSERT INTO job_leases (job, owner, held_until) VALUES (\(bind: job), \(bind: owner), \(bind: until)) \
            ON CONFLICT (job) DO UPDATE SET owner = \(bind: owner), held_until = \(bind: until) \
            WHERE job_leases.held_until <= \(bind: now) \
            RETURNING owner
            """).first()
        return try row?.decode(column: "owner", as: String.self) == owner
    }

    /// A one-off job (a day's briefing): taken once, ever, by the first who asks.
    func claimOnce(_ job: String, owner: String, now: Date) async throws -> Bool {
        try await claim(job, owner: owner, now: now, until: .distantFuture)
    }

    /// Lets other processes take `job` at once (its owner finished early or gave up).
    func release(_ job: String, owner: String) async throws {
        try await db.sql.raw("DELETE FROM job_leases WHERE job = \(bind: job) AND owner = \(bind: owner)").run()
    }
}
