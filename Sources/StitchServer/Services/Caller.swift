import Foundation
import Fluent
import Vapor

/// Who a sign-in or account service is serving, without the HTTP request: the application (its
/// settings, password hasher, mailer and HTTP client), a database, the moment the call began, the
/// client's address as the throttles count it, and a logger. The fronts make one with `req.caller`
/// (the API and the web alike); a test or a tool can make one without a request.
struct Caller: Sendable {
    let application: Application
    let db: any Database
    let now: Date
    /// The client's address as the sign-in throttles count it (`IPAddress.countingKey`).
    let client: String
    let logger: Logger

    var config: AppConfig { application.config }
}
