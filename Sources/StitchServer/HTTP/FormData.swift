import Foundation
import StitchCore
import Vapor

/// The parsed fields and files of a form post (URL-encoded or multipart).
struct FormData {
    var fields: [String: String] = [:]
    var files: [(name: String, data: Data)] = []
    /// The file name the browser gave each file field.
    var filenames: [String: String] = [:]
    /// A multipart part without a name, or a text field sent twice: what an API upload refuses
    /// (`PatternController`) rather than guess which one was meant.
    var malformed: String?

    static func parse(_ req: Request) throws -> FormData {
        var form = FormData()
        if let type = req.headers.contentType, type.type == "multipart", let boundary = type.parameters["boundary"] {
            guard let body = req.body.data else { return form }
            for part in try MultipartCollector.parse(Data(buffer: body), boundary: boundary) {
                if part.name.isEmpty {
                    form.malformed = "A part of the form has no name"
                } else if part.filename == nil, form.fields[part.name] != nil {
                    form.malformed = "The field \(part.name) is sent more than once"
                }
                if let filename = part.filename {
                    if !part.body.isEmpty {
                        form.files.append((part.name, part.body))
                        form.filenames[part.name] = filename
                    }
                } else {
                    form.fields[part.name] = String(decoding: part.body, as: UTF8.self)
                }
            }
        } else if req.body.data != nil {
            form.fields = (try? req.content.decode([String: String].self, as: .urlEncodedForm)) ?? [:]
        }
        return form
    }

    subscript(_ key: String) -> String? {
        guard let value = fields[key]?.trimmedWhitespace, !value.isEmpty else { return nil }
        return value
    }
}
