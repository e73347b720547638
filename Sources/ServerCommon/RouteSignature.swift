import Vapor

extension Route {
    /// "GET /threads/{id}": the method and the path as OpenAPI writes it (`*` and `**` for Vapor's
    /// wildcards), for matching the route table against the documents.
    public var signature: String {
        "\(method.rawValue) /" + path.map { component -> String in
            switch component {
            case .constant(let text): text
            case .parameter(let name): "{\(name)}"
            case .anything: "*"
            case .catchall: "**"
            }
        }.joined(separator: "/")
    }
}
