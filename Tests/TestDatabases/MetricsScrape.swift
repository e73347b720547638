import Foundation
import Vapor

/// One scrape of a server's `/metrics` over real HTTP (from loopback), read into samples.
public struct MetricsScrape: Sendable {
    public let status: HTTPStatus
    public let contentType: String
    public let text: String

    /// `GET http://127.0.0.1:port/metrics` through the application's own HTTP client.
    public static func get(_ app: Application, port: Int, headers: HTTPHeaders = [:]) async throws -> MetricsScrape {
        let response = try await app.client.get(URI(string: "http://127.0.0.1:\(port)/metrics"), headers: headers)
        let text = response.body.map { String(buffer: $0) } ?? ""
        return MetricsScrape(status: response.status, contentType: response.headers.first(name: .contentType) ?? "", text: text)
    }

    /// The value of the sample `name` whose labels include `labels` (summed over the rest), or 0
    /// when there is none yet.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double {
        var total = 0.0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let series = line[..<space]
            let (sampleName, sampleLabels) = Self.parse(String(series))
            guard sampleName == name, labels.allSatisfy({ sampleLabels[$0.key] == $0.value }) else { continue }
            total += value
        }
        return total
    }

    /// `name{a="1",b="2"}` → ("name", ["a": "1", "b": "2"]).
    static func parse(_ series: String) -> (String, [String: String]) {
        guard let brace = series.firstIndex(of: "{"), series.hasSuffix("}") else { return (series, [:]) }
        var labels: [String: String] = [:]
        let body = series[series.index(after: brace)..<series.index(before: series.endIndex)]
        var rest = Substring(body)
        while let equals = rest.firstIndex(of: "=") {
            let key = rest[..<equals].trimmingCharacters(in: CharacterSet(charactersIn: ", "))
            var value = ""
            var index = rest.index(equals, offsetBy: 2)  // past ="
            while index < rest.endIndex, rest[index] != "\"" {
                if rest[index] == "\\", rest.index(after: index) < rest.endIndex { index = rest.index(after: index) }
                value.append(rest[index])
                index = rest.index(after: index)
            }
            labels[key] = value
            rest = index < rest.endIndex ? rest[rest.index(after: index)...] : ""
        }
        return (String(series[..<brace]), labels)
    }
}
