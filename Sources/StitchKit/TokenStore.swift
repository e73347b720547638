import Foundation
import StitchCore

/// The signed-in session: both tokens and who they belong to.
public struct Session: Codable, Sendable, Equatable {
    public var server: String
    public var accessToken: String
    public var refreshToken: String
    public var user: UserProfile

    public init(server: String, accessToken: String, refreshToken: String, user: UserProfile) {
        self.server = server
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.user = user
    }
}

/// Where the session is kept between runs.
public protocol TokenStore: Sendable {
    func load() throws -> Session?
    func save(_ session: Session) throws
    func clear() throws
}

/// A file readable by its owner only (0600): the Linux and command-line store.
public struct FileTokenStore: TokenStore {
    public let path: String

    public init(path: String) { self.path = path }

    public func load() throws -> Session? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? StitchJSON.makeDecoder().decode(Session.self, from: data)
    }

    public func save(_ session: Session) throws {
        let data = try StitchJSON.makeEncoder().encode(session)
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // Created with owner-only permissions before any secret is written to it.
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])  // a failure throws below
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        try data.write(to: URL(fileURLWithPath: path))
    }

    public func clear() throws {
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    }
}

/// A store that forgets on exit: tests and previews.
public final class MemoryTokenStore: TokenStore, @unchecked Sendable {
    private let lock = NSLock()
    private var session: Session?

    public init(_ session: Session? = nil) { self.session = session }
    public func load() throws -> Session? { lock.withLock { session } }
    public func save(_ session: Session) throws { lock.withLock { self.session = session } }
    public func clear() throws { lock.withLock { session = nil } }
}

#if canImport(Security)
import Security

/// The Keychain, on Apple platforms.
public struct KeychainTokenStore: TokenStore {
    public let service: String

    public init(service: String = "app.stitchuation.session") { self.service = service }

    private var query: [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: "session"]
    }

    public func load() throws -> Session? {
        var item: CFTypeRef?
        var q = query
        q[kSecReturnData as String] = true
        guard SecItemCopyMatching(q as CFDictionary, &item) == errSecSuccess, let data = item as? Data else { return nil }
        return try? StitchJSON.makeDecoder().decode(Session.self, from: data)
    }

    public func save(_ session: Session) throws {
        let data = try StitchJSON.makeEncoder().encode(session)
        SecItemDelete(query as CFDictionary)
        var q = query
        q[kSecValueData as String] = data
        q[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let status = SecItemAdd(q as CFDictionary, nil)
        guard status == errSecSuccess else { throw NSError(domain: "Keychain", code: Int(status)) }
    }

    public func clear() throws { SecItemDelete(query as CFDictionary) }
}
#endif
