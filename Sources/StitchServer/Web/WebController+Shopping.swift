import ServerCommon
import Fluent
import Foundation
import StitchCore
import Vapor

/// The shopping list: what to buy, as text, added by hand, set aside, bought.
extension WebController {
    @Sendable func shopping(req: Request) async throws -> Response {
        let items = try await ShoppingService.compute(userId: req.user.id, db: req.db).items
        let catalog = try req.application.threadCatalog
        var alternatives: [String: CatalogAlternatives] = [:]
        for item in items {
            alternatives["\(item.brand) \(item.number)"] = catalog.alternatives(brand: item.brand, number: item.number, hex: nil, limit: 1)
        }
        return html(ShoppingPage(items: items, alternatives: alternatives).render(try await context(req)))
    }

    /// The list as plain text, to send or paste (`ShoppingList.plainText`).
    @Sendable func shoppingText(req: Request) async throws -> Response {
        let items = try await ShoppingService.compute(userId: req.user.id, db: req.db).items
        return Response(status: .ok, headers: ["Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store",
                                               "Content-Disposition": "inline; filename=\"shopping-list.txt\""],
                        body: .init(string: ShoppingList.plainText(items, asOf: req.now)))
    }

    /// Puts a thread on the list by hand: from the shopping page ("running low"), a thread's page,
    /// or a short requirement of a project the list doesn't count (planned). Goes back where it came from.
    @Sendable func addToShoppingList(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        let back = Self.localPath(form["back"]) ?? SiteURL.shopping.path
        let new = ShoppingService.NewLine(brand: form["brand"] ?? "", number: form["number"] ?? "", colorName: form["colorName"].flatMap { $0.isEmpty ? nil : $0 },
                                          quantity: Int(form["quantity"] ?? "") ?? 0, notes: form["notes"].flatMap { $0.isEmpty ? nil : $0 })
        do {
            let (line, _) = try await ShoppingService.addLine(new, userId: req.user.id, now: req.now, db: req.db)
            return redirect(to: back, flash: "On your shopping list: \(line.brand) \(line.number), \(line.quantity) added by hand.")
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return redirect(to: back, flash: fields.values.sorted().joined(separator: "; "))
        }
    }

    /// Sets a line aside without buying.
    @Sendable func dismissShoppingLine(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        let body = DismissRequest(brand: form["brand"] ?? "", number: form["number"] ?? "")
        do {
            try await ShoppingService.dismiss(try body.validated(), userId: req.user.id, now: req.now, db: req.db)
            return redirect(.shopping, flash: "\(body.brand) \(body.number) is set aside until your projects need a different number of it.")
        } catch let error as APIError where error.status == .notFound {
            return redirect(.shopping, flash: error.reason)
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return redirect(.shopping, flash: fields.values.sorted().joined(separator: "; "))
        }
    }

    /// A path on this site to go back to (never another site's address).
    static func localPath(_ given: String?) -> String? {
        guard let given, given.hasPrefix("/app/"), !given.hasPrefix("//"), !given.contains("\\") else { return nil }
        return given
    }

    @Sendable func buy(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        let quantity = Int(form["quantity"] ?? "") ?? 0
        let purchase = PurchaseRequest(brand: form["brand"] ?? "", number: form["number"] ?? "", quantity: quantity, colorName: form["colorName"])
        do {
            if let id = form["changeId"].flatMap(UUID.init(uuidString:)) {
                // Sent by the page with its id: a second copy (kept when the first one's answer was lost) adds nothing.
                guard let thread = try await Self.applyPurchase(purchase, id: id, userId: req.user.id, req: req) else {
                    return redirect(.shopping, flash: "That purchase was already added.")
                }
                return redirect(.shopping, flash: "Added \(quantity) × \(thread.brand) \(thread.number) to your inventory.")
            }
            let thread = try await ShoppingService.purchase(purchase, userId: req.user.id, now: req.now, db: req.db).thread
            return redirect(.shopping, flash: "Added \(quantity) × \(thread.brand) \(thread.number) to your inventory.")
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return redirect(.shopping, flash: fields.values.sorted().joined(separator: "; "))
        }
    }
}
