import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StitchCore

/// Why a request to the server failed, in words a person can act on.
public enum ClientError: Error, Equatable, CustomStringConvertible {
    /// No session, or the server ended it (refresh refused). Local data is untouched.
    case signedOut
    /// The server could not be reached.
    case offline(String)
    /// The server answered with an error.
    case server(status: Int, body: APIErrorBody)
    case invalidResponse

    public var description: String {
        switch self {
        case .signedOut: "You are signed out. Run `stitch login` to sign in again."
        case .offline(let why): "The server can't be reached (\(why)). Your changes are kept on this device."
        case .server(let status, let body):
            ([body.error] + (body.fields ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })
                .joined(separator: "\n  ") + " (\(status))"
        case .invalidResponse: "The server's answer could not be read."
        }
    }

    public var isNetwork: Bool { if case .offline = self { true } else { false } }
}

/// Talks to the Stitchuation API with the shared wire types. On a 401 it refreshes the session
/// once and retries; when that fails it reports `.signedOut` (and forgets the tokens, nothing else).
public actor APIClient {
    public let tokens: any TokenStore
    private let session: URLSession
    private let exchange: (any HTTPExchange)?
    private var baseURL: URL?
    /// The most of an answer read through an `HTTPExchange`: above the largest a server sends
    /// (a photo, a backup's page), far below what would exhaust a phone or a terminal.
    static let maxBody = 256 * 1024 * 1024

    /// - Parameters:
    ///   - tokens: where the session is kept.
    ///   - server: the server's address (else the one the saved session names).
    ///   - timeout: how long the server may stay silent.
    ///   - exchange: how requests reach the server, when not URLSession (`HTTPExchange`, WireCoding:
    ///     the `stitch` terminal client on Linux, where URLSession keeps a core busy while it waits).
    public init(tokens: any TokenStore, server: String? = nil, timeout: TimeInterval = 30, exchange: (any HTTPExchange)? = nil) {
        self.tokens = tokens
        self.exchange = exchange
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = timeout
        self.session = URLSession(configuration: config)
        self.baseURL = server.flatMap(URL.init(string:)) ?? (try? tokens.load()).flatMap { URL(string: $0?.server ?? "") }
    }

    public func setServer(_ server: String) { baseURL = URL(string: server) }
    public var server: String? { baseURL?.absoluteString }

    // MARK: Auth

    public func register(email: String, password: String, displayName: String) async throws -> Session {
        try await signIn(path: "/auth/register", body: RegisterRequest(email: email, password: password, displayName: displayName))
    }

    public func login(email: String, password: String) async throws -> Session {
        try await signIn(path: "/auth/login", body: LoginRequest(email: email, password: password))
    }

    public func signIn(provider request: ProviderSignInRequest) async throws -> Session {
        try await signIn(path: "/auth/provider", body: request)
    }

    public func logout() async throws {
        if let current = try tokens.load() {
            _ = try? await send("POST", "/auth/logout", body: LogoutRequest(refreshToken: current.refreshToken), authorized: true) as Data
        }
        try tokens.clear()
    }

    public func me() async throws -> UserProfile {
        try decode(try await send("GET", "/auth/me", body: Optional<String>.none, authorized: true))
    }

    /// Changes the password; the server ends every other sign-in, this one stays.
    public func changePassword(current: String, new: String) async throws {
        _ = try await send("POST", "/auth/password", body: ChangePasswordRequest(currentPassword: current, newPassword: new), authorized: true)
    }

    /// Asks the server to mail a link to choose a new password; answers what the server says,
    /// which is the same whether or not an account has the address.
    public func requestPasswordReset(email: String) async throws -> String {
        let accepted: PasswordResetAccepted = try decode(try await send("POST", "/auth/password-reset", body: PasswordResetRequest(email: email), authorized: false))
        return accepted.message
    }

    /// Sets a new password with a mailed link's token (or the whole link). The server ends every
    /// session of the account, so this device's is forgotten too: sign in with the new password.
    public func confirmPasswordReset(token: String, newPassword: String) async throws {
        let given = token.trimmingCharacters(in: .whitespacesAndNewlines)
        let token = given.range(of: "token=").map { String(given[$0.upperBound...].prefix { $0 != "&" && $0 != "#" }) } ?? given
        _ = try await send("POST", "/auth/password-reset/confirm", body: PasswordResetConfirmRequest(token: token, newPassword: newPassword), authorized: false)
        try tokens.clear()
    }

    /// Deletes the account and everything in it on the server, then forgets the session.
    public func deleteAccount(_ request: DeleteAccountRequest) async throws {
        _ = try await send("DELETE", "/auth/account", body: request, authorized: true)
        try tokens.clear()
    }

    private func signIn<B: Encodable>(path: String, body: B) async throws -> Session {
        let data = try await send("POST", path, body: body, authorized: false)
        let auth: AuthResponse = try decode(data)
        let session = Session(server: baseURL?.absoluteString ?? "", accessToken: auth.accessToken, refreshToken: auth.refreshToken, user: auth.user)
        try tokens.save(session)
        return session
    }

    /// Rotates the refresh token. A failure means the session is over.
    func refresh() async throws {
        guard let current = try tokens.load() else { throw ClientError.signedOut }
        do {
            let data = try await send("POST", "/auth/refresh", body: RefreshRequest(refreshToken: current.refreshToken), authorized: false)
            let auth: AuthResponse = try decode(data)
            try tokens.save(Session(server: current.server, accessToken: auth.accessToken, refreshToken: auth.refreshToken, user: auth.user))
        } catch ClientError.server(let status, _) where status == 401 || status == 400 {
            try tokens.clear()
            throw ClientError.signedOut
        }
    }

    // MARK: Data

    public func sync(_ request: SyncRequest) async throws -> SyncResponse {
        try await syncPage(request).response()
    }

    /// The same exchange, the page not yet decoded: its headers name the next page's cursor, so
    /// the caller can ask for that page before it decodes this one (`SyncPage.response()`).
    public func syncPage(_ request: SyncRequest) async throws -> SyncPage {
        let (data, http) = try await exchange("POST", "/sync", raw: try StitchJSON.encode(request), contentType: "application/json", authorized: true)
        return SyncPage(body: data, cursorHeader: http.value(forHTTPHeaderField: SyncPage.cursorHeader),
                        hasMoreHeader: http.value(forHTTPHeaderField: SyncPage.hasMoreHeader))
    }

    /// Uploads a picture; answers the server's key.
    public func uploadImage(_ data: Data, filename: String = "image") async throws -> String {
        let response: ImageUploadResponse = try decode(try await sendFile("/images", data, filename: filename))
        return response.key
    }

    /// The barcode in a photo of a thread's label, looked up (`POST /threads/scan`): the owner's
    /// thread with it, else the catalog colour that lists it, else unknown. The server reads the photo.
    public func scanBarcode(photo: Data, filename: String = "photo") async throws -> BarcodeScan {
        try decode(try await sendFile("/threads/scan", photo, filename: filename))
    }

    /// The same for digits typed from under the bars.
    public func scanBarcode(code: String) async throws -> BarcodeScan {
        try decode(try await send("POST", "/threads/scan", body: ["code": code], authorized: true))
    }

    /// POSTs one file as multipart/form-data in a field named `image`.
    private func sendFile(_ path: String, _ data: Data, filename: String) async throws -> Data {
        let boundary = "stitch-\(UUID().wireText)"
        var body = Data()
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"\(filename)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8))
        body.append(data)
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        return try await send("POST", path, raw: body, contentType: "multipart/form-data; boundary=\(boundary)", authorized: true)
    }

    /// A picture of the signed-in user's, with its content type.
    public func downloadImage(_ key: String) async throws -> (data: Data, contentType: String) {
        guard let escaped = key.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) else { throw ClientError.invalidResponse }
        let (data, http) = try await exchange("GET", "/images/" + escaped, raw: nil, contentType: nil, authorized: true)
        return (data, http.value(forHTTPHeaderField: "Content-Type") ?? "application/octet-stream")
    }

    /// Restores (part of) a backup into the account: pictures, records or both, as the backup
    /// file's JSON (see `BackupDocument.json`).
    public func restore(_ json: Data) async throws -> RestoreSummary {
        try decode(try await send("POST", "/account/restore", raw: json, contentType: "application/json", authorized: true))
    }

    /// The server's thread catalogs for what has been typed (`GET /catalog/search`).
    public func catalogSearch(_ query: String, limit: Int = 10) async throws -> [CatalogEntry] {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&+=?#")
        let q = query.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        return try await get("/catalog/search?limit=\(limit)&q=\(q)")
    }

    /// The catalog's entry for a brand's number, if the server's catalogs list it.
    public func catalogEntry(brand: String, number: String) async throws -> CatalogEntry? {
        try await catalogSearch("\(brand) \(number)", limit: 10).first {
            $0.brand.caseInsensitiveCompare(brand) == .orderedSame && $0.number.caseInsensitiveCompare(number) == .orderedSame
        }
    }

    /// A canvas's painted colours read from its photo, with their threads and amounts (online
    /// only); `query` as `GET /canvases/{id}/palette` takes it (detail, ground, stitch, strands, x, y).
    public func canvasPalette(canvasId: UUID, query: [String: String] = [:]) async throws -> CanvasPaletteAnswer {
        var components = URLComponents()
        components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        let suffix = query.isEmpty ? "" : "?" + (components.percentEncodedQuery ?? "")
        return try await get("/canvases/\(canvasId.text)/palette" + suffix)
    }

    /// Adds a canvas's reviewed colours' threads to a project's requirements (a new project from
    /// the canvas when `projectId` is nil), in one sync change on the server.
    public func addCanvasPalette(canvasId: UUID, _ confirmation: CanvasPaletteConfirmation) async throws -> CanvasPaletteResult {
        try decode(try await send("POST", "/canvases/\(canvasId.text)/palette/project", body: confirmation, authorized: true))
    }

    /// A pattern's colour key as the server reads it from the PDF (online only).
    public func chartKey(patternId: UUID) async throws -> ChartKeyProposal {
        try await get("/patterns/\(patternId.text)/key")
    }

    /// Adds the chosen threads of a pattern's key to its project's requirements.
    public func confirmChartKey(patternId: UUID, _ confirmation: ChartKeyConfirmation) async throws -> ChartKeyResult {
        try decode(try await send("POST", "/patterns/\(patternId.text)/key", body: confirmation, authorized: true))
    }

    /// "Recently deleted": what can still be restored.
    public func recentlyDeleted() async throws -> RecentlyDeleted {
        try await get("/deleted")
    }

    /// Restores a recently deleted record on the server (with what was deleted with it); the next
    /// sync brings it back to this device. Answers what is still recently deleted.
    public func restore(_ type: EntityType, id: UUID) async throws -> RecentlyDeleted {
        try decode(try await send("POST", "/deleted/\(type.rawValue)/\(id.text)/restore", body: Optional<String>.none, authorized: true))
    }

    public func get<T: Decodable>(_ path: String, as type: T.Type = T.self) async throws -> T {
        try decode(try await send("GET", path, body: Optional<String>.none, authorized: true))
    }

    // MARK: Transport

    private func send<B: Encodable>(_ method: String, _ path: String, body: B?, authorized: Bool) async throws -> Data {
        let data = try body.map { try StitchJSON.encode($0) }
        return try await send(method, path, raw: data, contentType: data == nil ? nil : "application/json", authorized: authorized)
    }

    private func send(_ method: String, _ path: String, raw: Data?, contentType: String?, authorized: Bool) async throws -> Data {
        try await exchange(method, path, raw: raw, contentType: contentType, authorized: authorized).data
    }

    private func exchange(_ method: String, _ path: String, raw: Data?, contentType: String?, authorized: Bool,
                          retried: Bool = false) async throws -> (data: Data, response: HTTPURLResponse) {
        guard let baseURL, let url = URL(string: path, relativeTo: baseURL) else { throw ClientError.offline("no server configured") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = raw
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if authorized {
            guard let token = try tokens.load()?.accessToken else { throw ClientError.signedOut }
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await load(request)
        } catch HTTPExchangeError.tooLong {
            throw ClientError.invalidResponse
        } catch HTTPExchangeError.unreachable(let why) {
            throw ClientError.offline(why)
        } catch {
            throw ClientError.offline(error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw ClientError.invalidResponse }
        if http.statusCode == 401, authorized, !retried {
            try await refresh()
            return try await exchange(method, path, raw: raw, contentType: contentType, authorized: authorized, retried: true)
        }
        guard (200..<300).contains(http.statusCode) else {
            let body = (try? StitchJSON.makeDecoder().decode(APIErrorBody.self, from: data)) ?? APIErrorBody(error: HTTPURLResponse.localizedString(forStatusCode: http.statusCode))
            if http.statusCode == 401, authorized { try tokens.clear(); throw ClientError.signedOut }
            throw ClientError.server(status: http.statusCode, body: body)
        }
        return (data, http)
    }

    /// The request made through the exchange given, else URLSession, never cancelled on Linux
    /// (`URLSession.dataNeverCancelled`, WireCoding).
    private func load(_ request: URLRequest) async throws -> (Data, URLResponse) {
        if let exchange {
            var request = request
            request.timeoutInterval = session.configuration.timeoutIntervalForRequest
            return try await exchange.data(for: request, upTo: Self.maxBody)
        }
        return try await session.dataNeverCancelled(for: request)
    }

    private func decode<T: Decodable>(_ data: Data) throws -> T {
        do { return try StitchJSON.decode(T.self, from: data) } catch { throw ClientError.invalidResponse }
    }
}

extension SyncPage {
    /// The page decoded; a body that isn't a sync response is `ClientError.invalidResponse`.
    public func response() throws -> SyncResponse {
        do { return try decode() } catch { throw ClientError.invalidResponse }
    }
}
