import AsyncHTTPClient
import Fluent
import NIOConcurrencyHelpers
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// The server's idea of "now" (`ServerClock`, shared with Stitchuation); tests move a `ManualClock`.
public typealias SeleneClock = ServerClock

/// What happened that someone outside may want to hear of (part 4's push listens here).
public enum SeleneEvent: Sendable, Hashable {
    case briefingReady(Briefing)
    case threadDetected(NoteThread)
}

/// Listeners of `SeleneEvent`s. A listener's failure never fails the work that announced it.
public final class SeleneEvents: @unchecked Sendable {
    public typealias Listener = @Sendable (SeleneEvent) async -> Void
    private let lock = NSLock()
    private var listeners: [Listener] = []
    public init() {}
    public func listen(_ listener: @escaping Listener) { lock.withLock { listeners.append(listener) } }
    public func announce(_ event: SeleneEvent) async {
        for listener in lock.withLock({ listeners }) { await listener(event) }
    }
}

/// Everything a request or a background job of Selene needs besides the database.
public final class SeleneServices: Sendable {
    public let config: SeleneConfig
    public let clock: SeleneClock
    let tokens: APITokens
    /// nil when no LLM is configured.
    public let llm: LLMClient?
    public let vectors: VectorIndex
    /// The later parts of long notes (`note_chunk_embeddings`): retrieval scores a note by the
    /// nearest of its vectors.
    public let chunkVectors: VectorIndex
    public let events: SeleneEvents
    /// Wakes the processing worker when a note arrives.
    let queueSignal: QueueSignal
    /// Whether this process's worker waits for the model server (status page, `/api/llm/health`).
    public let pause = PauseBox()
    /// What went to the hosted model since the server started (nil: none is switched on).
    let hostedUsage = NIOLockedValueBox<HostedUsage?>(nil)
    /// On SQLite, the event loop whose connection takes the writes (see `Application.writeDB`).
    var writerLoop: (any EventLoop)? { writerLoopBox.withLockedValue { $0 } }
    let writerLoopBox = NIOLockedValueBox<(any EventLoop)?>(nil)

    /// Web Push to browsers (nil with SELENE_WEBPUSH=off), and the pusher of both kinds.
    var webPush: WebPushClient? { webPushBox.withLockedValue { $0 } }
    let webPushBox = NIOLockedValueBox<WebPushClient?>(nil)
    var push: PushService? { pushBox.withLockedValue { $0 } }
    let pushBox = NIOLockedValueBox<PushService?>(nil)
    /// nil unless SELENE_STT_URL names a local speech-to-text server.
    let speech: SpeechToText?
    /// The ledger of every request sent off this machine (`Outbound`).
    public let outbound: OutboundLedger
    /// The hosted model's client, when one is switched on (SELENE_HOSTED_URL): behind the privacy
    /// router, through the ledger like every other request.
    let hostedLLM: LLMClient?

    init(config: SeleneConfig, clock: SeleneClock, llm: LLMClient?, speech: SpeechToText? = nil,
         outbound: OutboundLedger, hostedLLM: LLMClient? = nil) {
        self.config = config
        self.outbound = outbound
        self.hostedLLM = hostedLLM
        self.speech = speech
        self.clock = clock
        self.tokens = APITokens(config.apiTokens)
        self.llm = llm
        self.vectors = VectorIndex(model: config.llm?.embeddingModel)
        self.chunkVectors = VectorIndex(model: config.llm?.embeddingModel, chunks: true)
        self.events = SeleneEvents()
        self.queueSignal = QueueSignal()
        if let hosted = config.hosted {
            hostedUsage.withLockedValue { $0 = HostedUsage(url: hosted.url, model: hosted.model, personalContentAllowed: hosted.personal) }
        }
    }

    /// Whether pushes go out, in a sentence (the web app's status and devices pages).
    public var pushStatus: String {
        let web = config.webPush == nil ? " Web Push to browsers is off (SELENE_WEBPUSH=off)."
            : " Web Push to browsers is on: turn it on in each browser under More → Devices."
        guard let apns = config.apns else {
            return "Push to phones is off: no APNs key is configured (set SELENE_APNS_KEY_FILE, SELENE_APNS_KEY_ID, SELENE_APNS_TEAM_ID and SELENE_APNS_TOPIC)." + web
        }
        return "Push to phones is on: to \(apns.topic) through \(apns.host == SeleneConfig.APNs.sandbox ? "APNs' sandbox" : apns.host == SeleneConfig.APNs.production ? "APNs" : apns.host)." + web
    }

    /// The LLM, or the 503 that says none is configured.
    func requireLLM() throws -> LLMClient {
        guard let llm else { throw SeleneError.llmNotConfigured }
        return llm
    }
}

extension Application {
    private struct SeleneKey: StorageKey { typealias Value = SeleneServices }

    /// Where writes go. SQLite takes one writer at a time, and a second connection that tries
    /// meanwhile spins in SQLite's busy handler (sqlite-nio retries at once), burning a core the
    /// writer needs; so on SQLite every write goes through one connection and waits its turn in
    /// that connection's queue instead. PostgreSQL writes use any connection. Whatever the
    /// connection, a transaction is a `writeTransaction` (ServerCommon): one that reads and then
    /// writes would otherwise fail as "database is locked" when another connection — another
    /// process's, like `selene reindex` — committed in between.
    public var writeDB: any Database {
        guard let loop = selene.writerLoop, let db = databases.database(logger: logger, on: loop) else { return db }
        return db
    }

    public var selene: SeleneServices {
        get {
            guard let services = storage[SeleneKey.self] else { fatalError("configure(_:config:) has not run") }
            return services
        }
        set { storage[SeleneKey.self] = newValue }
    }
}

/// Processing waits for the model server: since when, why, and when it looks again.
public struct ProcessingPause: Sendable, Hashable {
    public var since: Date
    public var reason: String
    public var nextCheckAt: Date
}

public final class PauseBox: Sendable {
    private let box = NIOLockedValueBox<ProcessingPause?>(nil)
    public var current: ProcessingPause? { box.withLockedValue { $0 } }
    func set(_ pause: ProcessingPause?) { box.withLockedValue { $0 = pause } }
}

extension SeleneServices {
    /// The LLM's health with this process's processing pause, for `/api/llm/health` and the
    /// status page.
    /// The model the web app's chat, tasks and briefing views use: the server's own, behind the
    /// privacy router when a hosted model is switched on (SELENE_HOSTED_URL), which decides per
    /// request and counts what went out. With SELENE_HOSTED_PERSONAL=on, something from notes goes
    /// only after the person's yes (`HostedConsentStore`, kept in `db`).
    func chatLLM(db: any Database) -> any LLMProvider {
        let local = ServerLLMProvider(services: self)
        guard let hosted = config.hosted, let hostedLLM else { return local }
        let usage = hostedUsage, clock = clock
        let consent = HostedConsentStore(db: db, hosted: hosted)
        let plain = "the privacy router found nothing from notes, memories or conversations in it"
        let personal = "you said yes to your notes going to this hosted model (SELENE_HOSTED_PERSONAL=on)"
        let askFirst: @Sendable ([LLMMessage]) async -> Bool = { messages in
            // Unreadable answers keep it here: nothing personal leaves on a failure.
            (try? await consent.allows(messages, now: clock.now())) ?? false
        }
        return PrivacyRouter(local: local, hosted: ServerLLMProvider(hosted: hostedLLM, personalReason: personal, plainReason: plain),
                             settings: .init(hostedEnabled: true, allowPersonalContent: hosted.personal), askFirst: askFirst) { route in
            usage.withLockedValue { u in
                guard var current = u else { return }
                switch route {
                case .hosted: current.sent += 1; current.lastSentAt = clock.now()
                case .keptPersonal: current.keptLocal += 1
                case .local: break
                }
                u = current
            }
        }
    }

    public func llmHealth() async -> LLMHealth {
        var health = await localHealth()
        health.hosted = hostedUsage.withLockedValue { $0 }
        return health
    }

    private func localHealth() async -> LLMHealth {
        guard let llm else { return LLMHealth(available: false, reason: LLMError.notConfigured.description) }
        var health = await llm.health()
        if let pause = pause.current {
            health.pausedSince = pause.since
            health.pauseReason = pause.reason
            health.nextCheckAt = WireDate.rounded(pause.nextCheckAt)
        }
        return health
    }
}

/// A wake-up call for a waiting worker; wakes given while nobody waits are kept (one is enough).
final class QueueSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = false
    private var waiter: CheckedContinuation<Void, Never>?

    func wake() {
        let continuation: CheckedContinuation<Void, Never>? = lock.withLock {
            if let w = waiter { waiter = nil; return w }
            pending = true
            return nil
        }
        continuation?.resume()
    }

    /// Returns when woken or after `timeout` seconds.
    func wait(timeout: TimeInterval) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow: Bool = lock.withLock {
                        if pending { pending = false; return true }
                        waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
            group.addTask {
                // Cancelled when woken first: then it must not wake anyone.
                guard (try? await Task.sleep(nanoseconds: UInt64(max(timeout, 0.001) * 1_000_000_000))) != nil else { return }
                self.wake()
            }
            await group.next()
            group.cancelAll()
        }
    }
}
