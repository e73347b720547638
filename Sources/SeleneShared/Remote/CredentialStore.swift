import Foundation
#if canImport(Security)
import Security
#endif

/// Where the server's address and API token are kept: the Keychain on Apple platforms, a file
/// only its owner can read elsewhere.
public protocol CredentialStore: Sendable {
    func load() throws -> ServerSettings?
    func save(_ settings: ServerSettings) throws
    func clear() throws
}

/// Why the device's credential store couldn't read or keep the server token.
public struct CredentialStoreError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A JSON file with permissions 0600.
public struct FileCredentialStore: CredentialStore {
    public let path: String

    public init(path: String) { self.path = path }

    /// `$SELENE_HOME/server.json`, or `~/.config/selene/server.json`.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> FileCredentialStore {
        let home = environment["SELENE_HOME"] ?? (NSHomeDirectory() as NSString).appendingPathComponent(".config/selene")
        return FileCredentialStore(path: (home as NSString).appendingPathComponent("server.json"))
    }

    public func load() throws -> ServerSettings? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try SeleneJSON.decode(ServerSettings.self, from: data)
    }

    public func save(_ settings: ServerSettings) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard FileManager.default.createFile(atPath: path, contents: try SeleneJSON.encode(settings), attributes: [.posixPermissions: 0o600]) else {
            throw CredentialStoreError("Could not write \(path)")
        }
    }

    public func clear() throws {
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    }
}

#if canImport(Security)
/// The Keychain (a generic password item of this service).
public struct KeychainCredentialStore: CredentialStore {
    public let service: String

    public init(service: String = "app.selene.server") { self.service = service }

    private var query: [String: Any] { [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: "server"] }

    public func load() throws -> ServerSettings? {
        var q = query
        q[kSecReturnData as String] = true
        var result: AnyObject?
        let status = SecItemCopyMatching(q as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? Data else { throw CredentialStoreError("Keychain read failed (\(status))") }
        return try SeleneJSON.decode(ServerSettings.self, from: data)
    }

    public func save(_ settings: ServerSettings) throws {
        let data = try SeleneJSON.encode(settings)
        SecItemDelete(query as CFDictionary)
        var q = query
        q[kSecValueData as String] = data
        q[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
        let status = SecItemAdd(q as CFDictionary, nil)
        guard status == errSecSuccess else { throw CredentialStoreError("Keychain write failed (\(status))") }
    }

    public func clear() throws {
        let status = SecItemDelete(query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw CredentialStoreError("Keychain delete failed (\(status))") }
    }
}
#endif
