import Fluent
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// Web Push: the VAPID key, subscribing, a test push.
extension WebController {
    struct PushKey: Content { var publicKey: String }

    @Sendable func pushKey(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        guard let web = req.selene.webPush else { throw SeleneError(.serviceUnavailable, "Web Push is off on this server (SELENE_WEBPUSH=off)") }
        return try json(PushKey(publicKey: web.publicKey))
    }

    /// `PushSubscription.toJSON()` from the page (the CSRF token in `X-CSRF-Token`).
    @Sendable func pushSubscribe(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        try WebSession.verifyCSRF(req, submitted: req.headers.first(name: "X-CSRF-Token"))
        guard let web = req.selene.webPush else { throw SeleneError(.serviceUnavailable, "Web Push is off on this server (SELENE_WEBPUSH=off)") }
        struct Body: Decodable { struct Keys: Decodable { var p256dh: String; var auth: String }; var endpoint: String; var keys: Keys }
        let body = try req.decodeBody(Body.self)
        let subscription = try WebPushClient.Subscription(endpoint: body.endpoint, p256dh: body.keys.p256dh, auth: body.keys.auth, allowHTTP: web.allowHTTP)
        _ = try await web.checkedAddress(of: subscription.endpoint)
        let (device, created) = try await ConversationStore(db: req.writeDB).register(web: subscription, now: req.now)
        let response = try json(device, status: created ? .created : .ok)
        // Where the page goes next, with a message this server signed (`Flash`).
        response.headers.replaceOrAdd(name: "Selene-Next", value: SiteURL.devices.path(query: Flash.query("Notifications are on in this browser.")))
        return response
    }

    @Sendable func pushTest(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        try Self.verify(req)
        guard let push = req.selene.push else { return Self.redirect(.devices, flash: "Push is off on this server.") }
        let results = await push.broadcast(PushNotification(title: "Selene", body: "Notifications reach this device.", link: SiteURL.devices.path, collapseId: "test", fromNotes: false))
        let delivered = results.values.filter { $0 == .delivered }.count
        return Self.redirect(.devices, flash: "Sent to \(delivered) of \(results.count) device\(results.count == 1 ? "" : "s").")
    }
}
