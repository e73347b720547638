import BuildStamp
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServerCommon
import StitchCore
import StitchServer
import Vapor

@main
enum Entrypoint {
    static func main() async throws {
        if CommandLine.arguments.dropFirst().first == "--version" {
            print(BuildStamp.describe(StitchVersion.current))
            return
        }
        var env = try Environment.detect()
        try LoggingSystem.bootstrap(from: &env)
        if env.arguments.dropFirst().first == "restore" {
            // With the server stopped and before anything opens the database it replaces.
            do {
                let config = try AppConfig.fromEnvironment(env, logger: Logger(label: "restore"))
                try await RestoreCommand.run(arguments: Array(env.arguments.dropFirst(2)), config: config) { print($0) }
                return
            } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                exit(1)
            }
        }
        let app = try await Application.make(env)
        // Server work runs on NIO's event loops; this keeps blocking-pool work off the main thread.
        do {
            let config = try AppConfig.fromEnvironment(env, logger: app.logger)
            applyListenAddress(app)
            try await configure(app, config: config)
            if isServeCommand(env.arguments) {
                if ProcessInfo.processInfo.environment["AUTO_MIGRATE"] != "false" {
                    try await app.migrateOneAtATime(lockKey: 0x5354_4954_4348)  // "STITCH"
                }
                // Expired sign-in records deleted at start and every hour (see Housekeeping).
                app.lifecycle.use(HousekeepingSchedule())
                // PDF patterns whose pages a stopped server had not finished drawing.
                app.lifecycle.use(PatternRenderResume())
                app.lifecycle.use(PictureSizesBackfill())
                if let backups = config.backups {
                    app.lifecycle.use(BackupSchedule(settings: backups, product: ServerBackup.product) { app, folder, previous in
                        try await ServerBackup.take(app, to: folder, previous: previous)
                    })
                }
            }
            try await app.execute()
        } catch {
            // A clear line and a failing exit status, not a crash report.
            app.logger.critical("\(error)")
            try? await app.asyncShutdown()
            exit(1)
        }
        try await app.asyncShutdown()
    }

    /// HOST and PORT from the environment; `serve --hostname/--port` still win when given.
    static func applyListenAddress(_ app: Application) {
        let env = ProcessInfo.processInfo.environment
        app.http.server.configuration.hostname = env["HOST"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        app.http.server.configuration.port = env["PORT"].flatMap(Int.init) ?? 8080
    }
}
