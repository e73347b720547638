import ServerCommon
import Fluent
import Foundation
import StitchCore
import Vapor

extension WebController {
    // MARK: Export

    @Sendable func exportJSON(req: Request) async throws -> Response {
        let backup = try await AccountService.backup(userId: try req.user.id, pictures: true, app: req.application, db: req.db)
        return Response(status: .ok, headers: ["Content-Type": "application/json; charset=utf-8",
                                               "Content-Disposition": "attachment; filename=\"stitchuation-export.json\"", "Cache-Control": "no-store"],
                        body: .init(data: try StitchJSON.encodePretty(backup)))
    }

    @Sendable func exportCSV(req: Request) async throws -> Response {
        let userId = try req.user.id
        let data: Data
        switch ImportKind(rawValue: req.parameters.get("kind") ?? "") {
        case .threads: data = ThreadCSV.write(try await Records.list(ThreadModel.self, userId: userId, on: req.db))
        case .canvases: data = CanvasCSV.write(try await Records.list(CanvasModel.self, userId: userId, on: req.db))
        case nil: throw Abort(.notFound)
        }
        let name = req.parameters.get("kind")! + ".csv"
        return Response(status: .ok, headers: ["Content-Type": "text/csv; charset=utf-8", "Content-Disposition": "attachment; filename=\"\(name)\"",
                                               "Cache-Control": "no-store"], body: .init(data: data))
    }

    // MARK: Import

    @Sendable func importPage(req: Request) async throws -> Response {
        html(ImportPage(kind: ImportKind(rawValue: req.queryText("kind") ?? "") ?? .threads).render(try await context(req)))
    }

    /// The file read and planned against the account as it is now, nothing written.
    @Sendable func importPreview(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        let kind = ImportKind(rawValue: form["kind"] ?? "") ?? .threads
        let rule = DuplicateRule(rawValue: form["onDuplicate"] ?? "") ?? .add
        guard let file = form.files.first(where: { $0.name == "file" }) else {
            return html(ImportPage(kind: kind, rule: rule, error: "Choose a CSV file to import").render(try await context(req)), status: .badRequest)
        }
        return try await importStep(req, kind: kind, rule: rule, data: file.data, filename: form.filenames["file"] ?? "", confirm: nil)
    }

    /// The same file again, planned again (the account may have changed since the preview), written.
    @Sendable func importConfirm(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        let kind = ImportKind(rawValue: form["kind"] ?? "") ?? .threads
        let rule = DuplicateRule(rawValue: form["onDuplicate"] ?? "") ?? .add
        guard let data = form["file"].flatMap({ Data(base64Encoded: $0) }) else {
            return html(ImportPage(kind: kind, rule: rule, error: "The file didn't come back with the confirmation; choose it again").render(try await context(req)),
                        status: .badRequest)
        }
        return try await importStep(req, kind: kind, rule: rule, data: data, filename: form["filename"] ?? "", confirm: form["acceptDefaults"] == "yes" ? .acceptingDefaults : .yes)
    }

    enum ImportConfirmation { case yes, acceptingDefaults }

    private func importStep(_ req: Request, kind: ImportKind, rule: DuplicateRule, data: Data, filename: String, confirm: ImportConfirmation?) async throws -> Response {
        let userId = try req.user.id
        let now = req.now
        do {
            switch kind {
            case .threads:
                let file = try ThreadCSV.read(data, now: now)
                let plan = ImportPlan.make(file.rows, existing: try await Records.list(ThreadModel.self, userId: userId, on: req.db), rule: rule, now: now)
                return try await importOutcome(req, kind: kind, file: file, plan: plan, data: data, filename: filename, confirm: confirm)
            case .canvases:
                let file = try CanvasCSV.read(data, now: now)
                let plan = ImportPlan.make(file.rows, existing: try await Records.list(CanvasModel.self, userId: userId, on: req.db), rule: rule, now: now)
                return try await importOutcome(req, kind: kind, file: file, plan: plan, data: data, filename: filename, confirm: confirm)
            }
        } catch let error as ValidationError {
            return html(ImportPage(kind: kind, rule: rule, error: error.fields.values.sorted().joined(separator: "; ")).render(try await context(req)), status: .badRequest)
        }
    }

    private func importOutcome<R: Importable & SyncRecord>(
        _ req: Request, kind: ImportKind, file: ImportFile<R>, plan: ImportPlan<R>, data: Data, filename: String, confirm: ImportConfirmation?
    ) async throws -> Response {
        let preview = ImportPreviewPage(
            kind: kind, filename: filename, fileBase64: data.base64EncodedString(), report: file.report,
            summary: plan.summary(done: false, noun: kind.noun),
            entries: plan.entries.map { e in
                (e.action.rawValue, e.title, e.lines.map(String.init).joined(separator: ", "), e.detail ?? "")
            },
            writes: plan.writes.count, rule: plan.rule)
        guard let confirm else { return html(preview.render(try await context(req))) }
        if file.report.quantitiesMissing && confirm != .acceptingDefaults {
            var ctx = try await context(req)
            ctx.flash = "Tick the box to add them with 0 in stock, or choose a file with quantities."
            return html(preview.render(ctx), status: .badRequest)
        }
        let refused = try await AccountService.saveImported(plan.writes, userId: try req.user.id, app: req.application, db: req.db)
        var flash = "Imported from \(filename.isEmpty ? "your file" : filename): " + plan.summary(done: true, noun: kind.noun)
        if !file.report.problems.isEmpty { flash += " \(file.report.problems.count) row(s) with values that couldn't be read were not imported." }
        if !refused.isEmpty { flash += " \(refused.count) refused: " + refused.prefix(3).map { $0.error?.error ?? "" }.joined(separator: "; ") }
        return redirect(kind.url, flash: flash)
    }

    // MARK: Restore

    @Sendable func restorePage(req: Request) async throws -> Response {
        html(RestorePage().render(try await context(req)))
    }

    @Sendable func restore(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        guard let file = form.files.first(where: { $0.name == "backup" }) else {
            return html(RestorePage(error: "Choose a backup file").render(try await context(req)), status: .badRequest)
        }
        let document: BackupDocument
        do {
            document = try BackupDocument(json: file.data)
        } catch {
            let problem = error.fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
            return html(RestorePage(error: "This isn't a Stitchuation backup (\(problem))").render(try await context(req)), status: .badRequest)
        }
        do {
            let summary = try await AccountService.restore(document, userId: try req.user.id, app: req.application, db: req.db)
            return html(RestoreResultPage(summary: summary).render(try await context(req)))
        } catch let error as APIError where error.status == .badRequest || error.status == .payloadTooLarge {
            return html(RestorePage(error: ([error.reason] + (error.fields ?? [:]).values.sorted()).joined(separator: ": ")).render(try await context(req)),
                        status: error.status)
        }
    }

    // MARK: Password

    @Sendable func passwordPage(req: Request) async throws -> Response {
        html(PasswordPage().render(try await context(req)))
    }

    @Sendable func changePassword(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        let body = ChangePasswordRequest(currentPassword: form.fields["currentPassword"] ?? "", newPassword: form.fields["newPassword"] ?? "")
        guard body.newPassword == form.fields["confirmPassword"] else {
            return html(PasswordPage(errors: ["confirmPassword": "The two new passwords are not the same"]).render(try await context(req)), status: .badRequest)
        }
        do {
            try await AccountService.changePassword(body, user: try req.user, caller: req.caller)
        } catch let error as APIError {
            return html(PasswordPage(errors: error.fields ?? [:], message: error.fields == nil ? error.reason : nil).render(try await context(req)), status: error.status)
        }
        return redirect(.settings, flash: "Your password is changed. Every other device and browser has been signed out.")
    }

    // MARK: Forgot password

    @Sendable func forgotPasswordPage(req: Request) async throws -> Response {
        html(ForgotPasswordPage(canSend: req.config.smtp != nil).render(try await context(req)))
    }

    @Sendable func forgotPassword(req: Request) async throws -> Response {
        let email = try FormData.parse(req)["email"] ?? ""
        do {
            let accepted = try await PasswordReset.request(PasswordResetRequest(email: email), caller: req.caller)
            return html(ForgotPasswordPage(email: email, sent: accepted.message).render(try await context(req)))
        } catch let error as APIError {
            let page = ForgotPasswordPage(email: email, errors: error.fields ?? [:], message: error.fields == nil ? error.reason : nil,
                                          canSend: req.config.smtp != nil)
            return html(page.render(try await context(req)), status: error.status, headers: error.headers)
        }
    }

    @Sendable func resetPasswordPage(req: Request) async throws -> Response {
        let token = req.queryText("token") ?? ""
        let usable = try await PasswordReset.isUsable(token, caller: req.caller)
        return html(ResetPasswordPage(token: token, message: usable ? nil : PasswordReset.invalidLink.reason, usable: usable).render(try await context(req)),
                    status: usable ? .ok : .badRequest)
    }

    @Sendable func resetPassword(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        let body = PasswordResetConfirmRequest(token: form["token"] ?? "", newPassword: form.fields["newPassword"] ?? "")
        guard body.newPassword == form.fields["confirmPassword"] else {
            let page = ResetPasswordPage(token: body.token, errors: ["confirmPassword": "The two new passwords are not the same"])
            return html(page.render(try await context(req)), status: .badRequest)
        }
        do {
            _ = try await PasswordReset.confirm(body, caller: req.caller)
        } catch let error as APIError {
            // A bad or spent link can't be mended by typing again: offer a new one.
            let spent = error.fields?["token"] != nil
            let page = ResetPasswordPage(token: body.token, errors: error.fields ?? [:], message: spent || error.fields == nil ? error.reason : nil,
                                         usable: !spent)
            return html(page.render(try await context(req)), status: error.status)
        }
        let response = redirect(.signIn, flash: "Your password is changed, and every device and browser signed in to your account was signed out. Sign in with the new password.")
        try await WebSession.end(req: req, response: response)
        return response
    }

    // MARK: Deletion

    @Sendable func deleteAccountPage(req: Request) async throws -> Response {
        let userId = try req.user.id
        guard let user = try await UserModel.find(userId, on: req.db) else { throw WebError.signInRequired }
        return html(DeleteAccountPage(hasPassword: user.passwordHash != nil, counts: try await Self.counts(userId, db: req.db)).render(try await context(req)))
    }

    @Sendable func deleteAccount(req: Request) async throws -> Response {
        let userId = try req.user.id
        guard let user = try await UserModel.find(userId, on: req.db) else { throw WebError.signInRequired }
        let form = try FormData.parse(req)
        do {
            try await AccountService.confirmDeletion(DeleteAccountRequest(password: form.fields["password"], confirm: form["confirm"]), user: user, caller: req.caller)
        } catch let error as APIError {
            let page = DeleteAccountPage(hasPassword: user.passwordHash != nil, counts: try await Self.counts(userId, db: req.db),
                                         error: error.fields?.values.first ?? error.reason)
            return html(page.render(try await context(req)), status: error.status)
        }
        try await AccountService.deleteAccount(userId, app: req.application, db: req.db)
        let response = redirect(.signIn, flash: "Your account and everything in it have been deleted.")
        try await WebSession.end(req: req, response: response)
        return response
    }

    static func counts(_ userId: UUID, db: any Database) async throws -> [(String, Int)] {
        [("threads", try await Records.all(ThreadModel.self, userId: userId, on: db).count),
         ("canvases", try await Records.all(CanvasModel.self, userId: userId, on: db).count),
         ("projects", try await Records.all(ProjectModel.self, userId: userId, on: db).count)]
    }
}
