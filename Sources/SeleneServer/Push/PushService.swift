import Fluent
import Foundation
import Logging
import SeleneShared
import Vapor

/// Pushes what Selene announces to every registered device: "Your morning briefing is ready"
/// after a briefing, "New thread detected: NAME" (SELENE.md §4) when one is detected — phones through APNs, browsers
/// through Web Push, from the one device table. A device its push service says is gone is
/// forgotten.
public struct PushService: Sendable {
    let client: APNsClient?
    let web: WebPushClient?
    let app: Application

    init(client: APNsClient?, web: WebPushClient? = nil, app: Application) {
        self.client = client
        self.web = web
        self.app = app
    }

    public func handle(_ event: SeleneEvent) async {
        if app.selene.config.localOnly {
            // No words from the notes through Apple's or a browser vendor's service: opening it shows the rest.
            let (link, collapse) = switch event {
            case .briefingReady(let briefing): ("/app/briefing", "briefing-\(briefing.date)")
            case .threadDetected(let thread): ("/app/threads/\(thread.id)", "thread-\(thread.id)")
            }
            await broadcast(PushNotification(title: "Selene has something new", body: "Open Selene to see it.", link: link, collapseId: collapse, fromNotes: false))
            return
        }
        switch event {
        case .briefingReady(let briefing):
            let first = briefing.text.split(whereSeparator: \.isNewline).first.map(String.init) ?? briefing.text
            await broadcast(PushNotification(title: "Your morning briefing is ready", body: TokenBudget.truncate(first, toTokens: 40),
                                             link: "/app/briefing", collapseId: "briefing-\(briefing.date)"))
        case .threadDetected(let thread):
            await broadcast(PushNotification(title: "New thread detected: \(thread.name)", body: thread.summary, link: "/app/threads/\(thread.id)",
                                             collapseId: "thread-\(thread.id)"))
        }
    }

    /// Sends to every device; answers what happened to each token.
    @discardableResult
    public func broadcast(_ notification: PushNotification) async -> [String: PushResult] {
        let devices: [DeviceModel]
        do { devices = try await DeviceModel.query(on: app.db).all() } catch {
            app.logger.error("Push: the devices could not be read: \(error)")
            return [:]
        }
        var results: [String: PushResult] = [:]
        for device in devices {
            let result: PushResult
            if device.platform == DevicePlatform.web.rawValue {
                guard let web, let p256dh = device.webP256dh, let auth = device.webAuth,
                      let subscription = try? WebPushClient.Subscription(endpoint: device.token, p256dh: p256dh, auth: auth, allowHTTP: web.allowHTTP) else { continue }
                result = await web.send(notification, to: subscription)
            } else {
                guard let client else { continue }
                result = await client.send(notification, to: device.token)
            }
            results[device.token] = result
            switch result {
            case .delivered: break
            case .removeDevice(let reason):
                app.logger.notice("Push: the push service says device \(device.token.prefix(24))… is gone (\(reason)); it is removed")
                try? await device.delete(on: app.db)
            case .failed(let status, let reason):
                app.logger.warning("Push to \(device.token.prefix(8))… failed: \(status) \(reason)")
            }
        }
        return results
    }
}
