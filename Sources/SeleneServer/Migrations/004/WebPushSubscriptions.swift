import Fluent
import SQLKit

/// Browsers beside phones in the one device table: a Web Push subscription's endpoint is its
/// token (platform `web`), with the keys its messages are encrypted for.
struct WebPushSubscriptions: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("device_tokens").field("web_p256dh", .string).update()
        try await database.schema("device_tokens").field("web_auth", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw("DELETE FROM device_tokens WHERE platform = 'web'").run()
        try await database.schema("device_tokens").deleteField("web_auth").update()
        try await database.schema("device_tokens").deleteField("web_p256dh").update()
    }
}
