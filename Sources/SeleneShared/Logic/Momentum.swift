import Foundation

/// A thread's momentum and status (README "Threads").
///
/// Momentum = Σ over the thread's notes of 2^(−age / halfLife), where age is how long ago the note
/// was written (a note dated in the future counts as now). A note written today adds 1, one a
/// half-life ago ½, so a thread with steady recent writing outranks a big one gone quiet.
/// Status follows the last activity: active within `dormantAfter`, dormant within `archiveAfter`,
/// archived after; a new note makes any thread active again.
public enum Momentum {
    public static func score(noteDates: [Date], now: Date, halfLife: TimeInterval) -> Double {
        guard halfLife > 0 else { return Double(noteDates.count) }
        return noteDates.reduce(0) { sum, date in
            sum + pow(2, -max(0, now.timeIntervalSince(date)) / halfLife)
        }
    }

    public static func status(lastActivity: Date, now: Date, dormantAfter: TimeInterval, archiveAfter: TimeInterval) -> ThreadStatus {
        let quiet = now.timeIntervalSince(lastActivity)
        if quiet < dormantAfter { return .active }
        if quiet < archiveAfter { return .dormant }
        return .archived
    }
}
