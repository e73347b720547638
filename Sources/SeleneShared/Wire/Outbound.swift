import Foundation

/// One request Selene's server sent off this process (`GET /api/outbound`, the "What left this
/// machine" page, `selene outbound`): when, why, where to, how much went each way, and whether
/// anything from the person's notes, conversations or memories was in it.
public struct OutboundEntry: Codable, Sendable, Hashable, Identifiable {
    public var id: Int64
    /// When the request was sent.
    public var at: Date
    /// Why: `chat`, `embed`, `analysis`, `model-check`, `transcription`, `apns`, `web-push`, `hosted`.
    public var purpose: String
    /// Where to, as `host:port`.
    public var destination: String
    /// The request's bytes (its body; headers aside).
    public var bytesOut: Int
    /// The answer's bytes as far as it was read.
    public var bytesIn: Int
    /// The answer's HTTP status; nil when none came (the connection failed).
    public var status: Int?
    /// Whether text from notes, conversations or memories was in the request.
    public var noteDerived: Bool
    /// Why it was let go, when something decided (the hosted model's privacy router).
    public var reason: String?
    /// What went wrong, when the request failed.
    public var failure: String?

    public init(id: Int64, at: Date, purpose: String, destination: String, bytesOut: Int, bytesIn: Int, status: Int?,
                noteDerived: Bool, reason: String? = nil, failure: String? = nil) {
        self.id = id; self.at = at; self.purpose = purpose; self.destination = destination; self.bytesOut = bytesOut
        self.bytesIn = bytesIn; self.status = status; self.noteDerived = noteDerived; self.reason = reason; self.failure = failure
    }
}

/// `GET /api/outbound`: the newest entries first, and how long they are kept.
public struct OutboundList: Codable, Sendable, Hashable {
    public var count: Int
    /// Days an entry is kept (`SELENE_OUTBOUND_DAYS`).
    public var keptDays: Int
    public var entries: [OutboundEntry]
    public init(keptDays: Int, entries: [OutboundEntry]) { self.count = entries.count; self.keptDays = keptDays; self.entries = entries }
}
