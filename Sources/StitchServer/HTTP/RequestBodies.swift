import Foundation
import StitchCore
import Vapor

// What a request's body holds, read before a service is called: the pictures of a multipart
// upload, a barcode photo or its typed digits.
extension Images {
    /// Image parts of a multipart body: fields named `image`, `images`, `image[]` or `images[]`.
    static func parts(of req: Request) throws -> [Data] {
        guard let contentType = req.headers.contentType, contentType.type == "multipart",
              let boundary = contentType.parameters["boundary"]
        else { throw APIError(.unsupportedMediaType, "Send the picture as multipart/form-data in a field named image") }
        guard let body = req.body.data else { throw APIError(.badRequest, "The image is empty", fields: ["image": "Choose a picture"]) }
        let parts = try MultipartCollector.parse(Data(buffer: body), boundary: boundary)
        let images = parts.filter { ["image", "images", "image[]", "images[]"].contains($0.name) }.map(\.body)
        guard !images.isEmpty else { throw APIError.validation(["image": "Choose a picture"]) }
        return images
    }
}

extension BarcodeScanning {
    /// A multipart `image` (a photo) or `code` (typed digits), a form's or JSON body's `code`.
    static func input(of req: Request) throws -> Input {
        let type = req.headers.contentType
        if type?.type == "multipart" {
            let form = try FormData.parse(req)
            if let photo = form.files.first(where: { $0.name == "image" })?.data { return .photo(photo) }
            if let code = form["code"] { return .code(code) }
            throw APIError.validation(["image": "Choose a photo of the barcode, or type its digits in code"])
        }
        if type == .json || type == .urlEncodedForm {
            struct Body: Decodable { var code: String? }
            guard let code = (try? req.content.decode(Body.self))?.code else {
                throw APIError.validation(["code": "Type the digits under the bars"])
            }
            return .code(code)
        }
        throw APIError(.unsupportedMediaType, "Send a photo as multipart/form-data in a field named image, or {\"code\": \"…\"} as JSON")
    }
}
