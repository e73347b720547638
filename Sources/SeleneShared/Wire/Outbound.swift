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

/// Whether the person said yes to their notes going to the hosted model (`GET /api/hosted/consent`).
/// With `SELENE_HOSTED_PERSONAL=on` the first request that would carry anything from notes,
/// memories or conversations is kept on the person's own model and held here, word for word,
/// until they answer; only a yes lets such requests go.
public struct HostedConsent: Codable, Sendable, Hashable {
    /// Where things stand.
    public enum State: String, WireEnum {
        /// No hosted model, or one that may never see anything personal: nothing to ask.
        case off
        /// Nothing personal has tried to go yet.
        case notAsked = "not-asked"
        /// A request with something from notes waits for an answer (`messages`).
        case waiting
        /// The person said yes: such requests go to the hosted model.
        case allowed
        /// The person said no: they stay on the person's own model.
        case refused
    }

    public var state: State
    /// The hosted model's address and model (nil when none is switched on).
    public var url: String?
    public var model: String?
    /// When the request was held, and when the person answered.
    public var askedAt: Date?
    public var decidedAt: Date?
    /// Exactly what the hosted model would receive: the held request's messages.
    public var messages: [LLMMessage]

    public init(state: State, url: String? = nil, model: String? = nil, askedAt: Date? = nil, decidedAt: Date? = nil, messages: [LLMMessage] = []) {
        self.state = state; self.url = url; self.model = model; self.askedAt = askedAt; self.decidedAt = decidedAt; self.messages = messages
    }
}

/// `POST /api/hosted/consent`: the person's answer to the held request.
public struct HostedConsentAnswer: Codable, Sendable, Hashable {
    /// Yes: requests with something from notes go to the hosted model; no: they stay here.
    public var allow: Bool
    public init(allow: Bool) { self.allow = allow }
}
