import Fluent
import SQLKit

/// The person's answer about their notes going to a hosted model (`HostedConsentStore`): one row
/// per hosted address, holding the first request that would have carried notes until they answer.
struct CreateHostedConsent: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("hosted_consent")
            .field("url", .string, .required)
            .field("model", .string, .required)
            .field("messages", .string, .required)
            .field("asked_at", .datetime, .required)
            .field("decided_at", .datetime)
            .field("allowed", .bool)
            .unique(on: "url")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("hosted_consent").delete()
    }
}
