import Foundation
import Observation

/// The Briefing tab: today's briefing with its threads, links and tasks, and notes worth seeing
/// again.
@MainActor
@Observable
public final class BriefingViewModel {
    /// What the briefing screen shows: idle, loading, loaded, or why it failed.
    public enum State: Sendable, Hashable {
        case idle, loading, loaded, failed(String)
    }

    public private(set) var state: State = .idle
    public private(set) var briefing: Briefing?
    /// Old notes the briefing's new notes touch.
    public private(set) var resurfaced: [Resurfacing.Suggestion] = []
    /// What the briefing points at, numbered, each leading to a conversation (`BriefingCards`).
    public var cards: [BriefingCard] { briefing.map { BriefingCards.cards($0, resurfaced: resurfaced) } ?? [] }
    let data: any DataProvider
    let now: @Sendable () -> Date

    public init(data: any DataProvider, now: @escaping @Sendable () -> Date = { Date() }) {
        self.data = data
        self.now = now
    }

    public func load() async { await fetch(regenerate: false) }

    /// Writes today's briefing again.
    public func regenerate() async { await fetch(regenerate: true) }

    private func fetch(regenerate: Bool) async {
        state = .loading
        do {
            let result = try await BriefingEngine(data: data, now: now).load(regenerate: regenerate)
            briefing = result.briefing
            resurfaced = result.resurfaced
            state = .loaded
        } catch {
            state = .failed(ChatViewModel.describe(error))
        }
    }
}

/// The first-run screen: the server's address and API token, tested against an authenticated
/// endpoint before they are kept (so a wrong token fails here, not later).
@MainActor
@Observable
public final class ServerSetupViewModel {
    /// Whether the server set-up screen has reached the server.
    public enum Status: Sendable, Hashable {
        case unknown, testing, connected, failed(String)
    }

    public var address = ""
    public var token = ""
    public private(set) var status: Status = .unknown
    public private(set) var saved: ServerSettings?
    let store: any CredentialStore

    public init(store: any CredentialStore) {
        self.store = store
        if let existing = try? store.load() {
            saved = existing
            address = existing.url.absoluteString
            token = existing.token ?? ""
        }
    }

    /// Tests the address and token; keeps them only when the server accepted them.
    @discardableResult
    public func testAndSave() async -> Bool {
        guard let url = ServerSettings.parseURL(address) else {
            status = .failed("Enter the server's address, like http://my-mac.local:5678")
            return false
        }
        let settings = ServerSettings(url: url, token: token.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : token.trimmingCharacters(in: .whitespacesAndNewlines))
        status = .testing
        do {
            try await RemoteDataService(settings: settings, timeout: 10).checkConnection()
            try store.save(settings)
            saved = settings
            status = .connected
            return true
        } catch let error as SeleneClientError {
            switch error {
            case .signedOut: status = .failed("The server needs an API token: paste one from `selene token new` (its SELENE_API_TOKEN).")
            case .wrongToken: status = .failed("The server refused this token. Check it against the server's SELENE_API_TOKEN.")
            default: status = .failed(error.description)
            }
        } catch {
            status = .failed(ChatViewModel.describe(error))
        }
        return false
    }

    public func signOut() {
        try? store.clear()
        saved = nil
        token = ""
        status = .unknown
    }
}
