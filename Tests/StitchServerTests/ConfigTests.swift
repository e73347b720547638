import Foundation
import Logging
import NIOConcurrencyHelpers
@testable import StitchServer
import Testing
import Vapor

@Suite("Configuration from the environment")
struct ConfigTests {
    let logger = Logger(label: "test")

    func tempDir() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("stitch-config-\(UUID().uuidString)").path
    }

    @Test("No configuration: SQLite in the data directory, a generated secret kept for next time")
    func defaults() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try AppConfig.fromEnvironment(.development, variables: ["DATA_DIR": dir], logger: logger)
        #expect(config.database == .sqliteFile(path: dir + "/stitchuation.sqlite"))
        #expect(config.jwtSecret.utf8.count >= 32)
        #expect(config.bcryptCost >= 12)
        let again = try AppConfig.fromEnvironment(.development, variables: ["DATA_DIR": dir], logger: logger)
        #expect(again.jwtSecret == config.jwtSecret)
        let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/jwt-secret")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test("Instances starting at once on one data folder end with one development secret")
    func secretCreatedOnce() throws {
        for _ in 0..<20 {
            let dir = tempDir()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let secrets = NIOLockedValueBox<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                let secret = (try? AppConfig.developmentSecret(in: dir, logger: logger)) ?? "failed"
                secrets.withLockedValue { $0.append(secret) }
            }
            let all = secrets.withLockedValue { $0 }
            #expect(Set(all).count == 1 && all[0] != "failed", "\(Set(all))")
            #expect(try String(contentsOfFile: dir + "/jwt-secret", encoding: .utf8) == all[0])
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["jwt-secret"], "no scratch files left")
        }
    }

    @Test("A development secret that can't be stored is an error, not a new secret on every start")
    func unstorableSecret() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/jwt-secret", withIntermediateDirectories: true)
        #expect(throws: ConfigError.self) {
            try AppConfig.fromEnvironment(.development, variables: ["DATA_DIR": dir], logger: logger)
        }
    }

    @Test("Production without JWT_SECRET refuses to start")
    func productionNeedsSecret() {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: ConfigError.self) {
            try AppConfig.fromEnvironment(.production, variables: ["DATA_DIR": dir], logger: logger)
        }
    }

    @Test("A short secret is refused (HMAC keys under 32 bytes are unsafe)")
    func shortSecret() {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: ConfigError.self) {
            try AppConfig.fromEnvironment(.production, variables: ["DATA_DIR": dir, "JWT_SECRET": "short"], logger: logger)
        }
    }

    @Test("DATABASE_URL switches to PostgreSQL; anything else is refused")
    func postgresURL() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let secret = String(repeating: "k", count: 40)
        let config = try AppConfig.fromEnvironment(
            .production, variables: ["DATA_DIR": dir, "JWT_SECRET": secret, "DATABASE_URL": "postgres://u:p@localhost/db"],
            logger: logger)
        #expect(config.database == .postgres(url: "postgres://u:p@localhost/db"))
        #expect(throws: ConfigError.self) {
            try AppConfig.fromEnvironment(
                .production, variables: ["DATA_DIR": dir, "JWT_SECRET": secret, "DATABASE_URL": "mysql://x"], logger: logger)
        }
    }
}
