import Fluent
import Foundation
import StitchCore
import Vapor

/// Whether an account's address is its owner's. Registration proves nothing (anyone can type any
/// address), so a new email account's address is unproven until a mail to it is answered: the
/// confirmation mailed at registration, or a password-reset link. A provider's verified claim
/// proves the address of an account it makes.
///
/// What it guards against is the stranger who registers someone's address first ("pre-account
/// hijacking"): when the owner later arrives through a provider whose verified address is the
/// same, and proves the address by the mailed link, the account is taken back from whoever set
/// its password — see `AccountLinks.confirmMailed`.
enum AddressProof {
    /// A confirmation link's lifetime: a week, as people read mail late.
    static let lifetime: TimeInterval = 7 * 24 * 3600

    struct Claim: Codable, Equatable {
        var user: UUID
        var email: String
        var issued: Int
    }

    static func token(_ claim: Claim, secret: String) -> String {
        let payload = TokenService.base64URL(Array((try? JSONEncoder().encode(claim)) ?? Data()))
        return payload + "." + AccountLinks.sign(payload, purpose: "confirm-address", secret: secret)
    }

    static func verify(_ token: String, now: Date, secret: String) -> Claim? {
        guard let (data, _) = AccountLinks.verified(token, purpose: "confirm-address", secret: secret),
              let claim = try? JSONDecoder().decode(Claim.self, from: data) else { return nil }
        let age = now.timeIntervalSince1970 - Double(claim.issued)
        return age >= -60 && age <= lifetime ? claim : nil
    }

    /// Mails the confirmation link to a new account's address, when this server sends mail.
    static func mailConfirmation(to user: UserModel, caller: Caller) {
        guard let smtp = caller.config.smtp, let site = caller.config.publicURL, let email = user.email, let userId = user.id else { return }
        let claim = Claim(user: userId, email: email, issued: Int(caller.now.timeIntervalSince1970))
        let link = "\(site)\(SiteURL.confirmAddress.path)?token=\(token(claim, secret: caller.config.jwtSecret))"
        let message = MailMessage(to: email, subject: "Confirm your Stitchuation address", body: """
            Hello \(user.displayName),

            Someone (we hope you) made a Stitchuation account with this address. To confirm it is yours, open this \
            link within a week:

            \(link)

            If it wasn't you, you can ignore this message. Should you ever sign in to Stitchuation with Apple, \
            Instagram or TikTok using this address, the account stays yours: the password someone else set on it \
            stops working then.
            """)
        caller.application.mailQueue.send(message, with: smtp, what: "address confirmation", userId: userId, logger: caller.logger)
    }

    /// Settings' "Email me the confirmation link": the link again, at most as often as reset
    /// links are mailed to one address.
    static func mailAgain(to user: UserModel, caller: Caller) async throws {
        guard let email = user.email, user.emailProvenAt == nil else { return }
        let config = caller.config
        guard config.smtp != nil, config.publicURL != nil else {
            throw APIError(.serviceUnavailable, "This server can't send email. Forgot password confirms the address too, once mail is set up.")
        }
        try await PasswordReset.countMailedLink(to: email, refusal: "Too many links mailed to this address", caller: caller)
        mailConfirmation(to: user, caller: caller)
    }

    static let invalidLink = APIError(.badRequest, "This confirmation link has expired or isn't from this server. Sign in and have a new one mailed from Settings, or use Forgot password: its mail confirms the address too.",
                                      fields: ["token": "Expired or not from this server"])

    /// The link opened: the account's address is proven, if it is still the one mailed.
    @discardableResult
    static func confirm(token: String, caller: Caller) async throws -> UserModel {
        guard let claim = verify(token, now: caller.now, secret: caller.config.jwtSecret) else { throw invalidLink }
        let now = caller.now
        return try await caller.db.writeTransaction { db in
            guard let user = try await UserModel.find(claim.user, on: db), user.email == claim.email else { throw invalidLink }
            if user.emailProvenAt == nil {
                user.emailProvenAt = now
                try await user.save(on: db)
            }
            return user
        }
    }
}
