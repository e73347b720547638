import Foundation
import StitchCore

/// Pushes local changes and pulls the server's, as SPEC §3 describes: at start, 2 s after the last
/// local write, on return to the foreground when the last sync is over a minute old, and on request.
/// Network failures are retried with exponential backoff; a session the server ended stops it.
public actor SyncEngine {
    /// What the sync engine shows the person: the last sync, and what is still waiting to go.
    public struct Status: Sendable, Equatable {
        public var lastSync: Date?
        public var pending: Int
        public var stagedImages: Int
        public var lastError: String?
        public var rejected: [SyncResult]
        /// This device's changes to records deleted on another device, named, from the last sync:
        /// dropped with the records (deletes win).
        public var deletedElsewhere: [String] = []
        public var isSyncing: Bool
    }

    public let store: LocalStore
    public let api: APIClient
    private let sleep: @Sendable (Duration) async throws -> Void
    private var debounce: Task<Void, Never>?
    private var running: Task<Void, any Error>?
    private var lastError: String?
    private var rejected: [SyncResult] = []
    private var deletedElsewhere: [String] = []
    /// Records per pull page that a device asks for: the most the server gives. Every page is a
    /// round trip, which on a phone's network costs far more than the page's bytes (a first sync
    /// of 10,000 records is two requests, not ten or twenty); a page is stored in one transaction.
    public static let defaultPageSize = SyncRequest.maxLimit
    public var pageSize: Int = SyncEngine.defaultPageSize
    public static let debounceDelay: Duration = .seconds(2)
    public static let staleAfter: TimeInterval = 60
    /// Changes per push request; the server takes up to 20,000.
    public static let pushBatch = 5000

    public init(store: LocalStore, api: APIClient,
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.store = store
        self.api = api
        self.sleep = sleep
    }

    public func setPageSize(_ size: Int) { pageSize = size }

    /// The id of this installation, made once and kept in the store.
    public var clientId: UUID {
        get throws {
            if let raw = try store.setting("clientId"), let id = UUID(text: raw) { return id }
            let id = UUID()
            try store.setSetting("clientId", id.text)
            return id
        }
    }

    public func status() throws -> Status {
        Status(lastSync: try store.setting(LocalStore.lastSyncKey).flatMap(Timestamp.date(from:)),
               pending: try store.pendingCount(), stagedImages: try store.stagedImageCount(),
               lastError: lastError, rejected: rejected, deletedElsewhere: deletedElsewhere, isSyncing: running != nil)
    }

    // MARK: Triggers

    /// At launch.
    public func start() {
        Task { try? await self.syncWithRetry() }
    }

    /// After every local write: syncs once writes have paused for two seconds.
    public func localWriteHappened() {
        debounce?.cancel()
        debounce = Task { [sleep] in
            do { try await sleep(Self.debounceDelay) } catch { return }
            try? await self.syncWithRetry()
        }
    }

    /// On return to the foreground (and from a periodic background refresh).
    public func becameActive() async {
        let last = (try? store.setting(LocalStore.lastSyncKey)).flatMap { $0 }.flatMap(Timestamp.date(from:))
        if last == nil || store.clock().timeIntervalSince(last!) > Self.staleAfter {
            try? await syncWithRetry()
        }
    }

    /// Pull-to-refresh, `stitch sync`: one sync now, retried on network errors.
    public func syncWithRetry(attempts: Int = 5, initialDelay: Duration = .milliseconds(500)) async throws {
        var delay = initialDelay
        for attempt in 1...attempts {
            do {
                try await sync()
                return
            } catch let error as ClientError where error.isNetwork && attempt < attempts {
                try await sleep(delay)
                delay *= 2
            }
        }
    }

    /// One full round: staged pictures up, pending changes pushed, every page pulled. Concurrent
    /// callers share the round in progress.
    public func sync() async throws {
        if let running {
            try await running.value
            return
        }
        let task = Task { try await self.performSync() }
        running = task
        defer { running = nil }
        do {
            try await task.value
            lastError = nil
        } catch {
            lastError = (error as? ClientError)?.description ?? "\(error)"
            throw error
        }
    }

    private func performSync() async throws {
        try await store.uploadStagedImages { [api] data in try await api.uploadImage(data) }
        let clientId = try self.clientId
        // A sync from the start pushes nothing until its pull is done: a change to a record the
        // server has forgotten (deleted long ago elsewhere) would bring it back.
        var fromScratch = try store.isSyncingFromScratch
        var outgoing = fromScratch ? [] : try store.pendingChanges()
        var restarted = false
        var cursor = try store.cursor
        var newlyRejected: [SyncResult] = []
        var newlyDeletedElsewhere: [String] = []
        // The next page, asked for as soon as this one has arrived (its headers name the cursor),
        // and decoded while this one is being stored. Only once nothing is left to push, so the
        // request is exactly the one the loop would make next.
        var ahead: PageRequest?
        defer { ahead?.cancel() }
        let ask = { [api, pageSize] (cursor: String?, batch: [SyncChange]) in
            PageRequest(cursor: cursor) { try await api.syncPage(SyncRequest(cursor: cursor, clientId: clientId, changes: batch, limit: pageSize)) }
        }
        while true {
            let batch = Array(outgoing.prefix(Self.pushBatch))
            outgoing.removeFirst(batch.count)
            let response: SyncResponse
            do {
                let current = ahead ?? ask(cursor, batch)
                ahead = nil
                if outgoing.isEmpty, let next = try await current.page.value.nextCursor { ahead = ask(next, []) }
                response = try await current.response.value
            } catch let ClientError.server(status, body) where status == 409 && body.fields?["cursor"] != nil && cursor != nil && !restarted {
                // The server doesn't take our cursor (and applied nothing): it isn't one it issued,
                // or it is from before deletes whose tombstones are gone. Pull everything again
                // from the start, then push what waits here (`finishFromScratch`). (Nothing is asked
                // for ahead yet: that happens only once a page has arrived.)
                try store.beginFromScratch()
                restarted = true  // once a round: a server refusing its own cursors again is an error
                fromScratch = true
                cursor = nil
                outgoing = []
                continue
            }
            // A page asked for with the headers' cursor is kept only if the body's agrees; without
            // the headers (an older server) the next page is asked for now.
            if let early = ahead, !(response.hasMore && early.cursor == response.cursor) {
                early.cancel()
                ahead = nil
            }
            if ahead == nil, response.hasMore, outgoing.isEmpty { ahead = ask(response.cursor, []) }
            let now = store.clock()
            try store.acknowledge(response.results, sent: batch, at: now)
            newlyDeletedElsewhere += try store.applyPulled(response.changes, cursor: response.cursor, at: now, fromScratch: fromScratch)
            newlyRejected += response.results.filter { $0.status == .rejected }
            cursor = response.cursor
            if fromScratch, !response.hasMore {
                newlyDeletedElsewhere += try store.finishFromScratch()
                fromScratch = false
                outgoing = try store.pendingChanges()
            }
            if !response.hasMore && outgoing.isEmpty { break }
        }
        rejected = newlyRejected
        deletedElsewhere = newlyDeletedElsewhere
        try store.setSetting(LocalStore.lastSyncKey, Timestamp.string(from: store.clock()))
    }
}

/// A sync request under way: the exchange, and the decoding that follows it.
struct PageRequest {
    let cursor: String?
    let page: Task<SyncPage, any Error>
    let response: Task<SyncResponse, any Error>

    init(cursor: String?, fetch: @escaping @Sendable () async throws -> SyncPage) {
        self.cursor = cursor
        let page = Task { try await fetch() }
        self.page = page
        response = Task { try await page.value.response() }
    }

    /// Nothing waits for it any more. (On Linux the exchange still runs to its end, unused: see
    /// `APIClient.load`.)
    func cancel() {
        page.cancel()
        response.cancel()
    }
}
