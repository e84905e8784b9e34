import Foundation

/// What one HAAPI response body decodes to.
public enum HaapiResponse: Sendable {
    /// A step.
    case representation(any HaapiRepresentation)
    /// A problem.
    case problem(any ProblemRepresentation)
}

/// The media types of the HAAPI wire format.
public enum HaapiMediaType {
    /// The media type of a HAAPI step.
    public static let representation = "application/vnd.auth+json"
    /// The media type of a problem (RFC 9457).
    public static let problem = "application/problem+json"

    /// The essence of a `Content-Type` value: lower-cased, parameters dropped.
    public static func essence(of contentType: String) -> String {
        // On the UTF-8 buffer (this runs on every request and response, and the header is ASCII), and the
        // value itself when it is already an essence, as it usually is: no new string.
        var text = contentType
        return text.withUTF8 { bytes in
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
            var start = 0
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            while start < end, isSpace(bytes[start]) { start += 1 }
            while start < end, isSpace(bytes[end - 1]) { end -= 1 }
            let essence = UnsafeBufferPointer(rebasing: bytes[start..<end])
            let needsLowering = essence.contains { $0 >= 0x41 && $0 <= 0x5A || $0 >= 0x80 }
            if !needsLowering, start == 0, end == bytes.count { return contentType }
            let copy = String(decoding: essence, as: UTF8.self)
            return needsLowering ? copy.lowercased() : copy
        }
    }
}

/// Decodes HAAPI response bodies into typed steps and problems.
///
/// Bad input never traps: every failure is a `HaapiDecodingError` naming where it happened.
public struct HaapiDecoder: Sendable {
    /// The size and depth the decoder accepts.
    public let limits: JSONParser.Limits

    /// A decoder with the given limits.
    public init(limits: JSONParser.Limits = .default) {
        self.limits = limits
    }

    func parse(_ bytes: some Sequence<UInt8>) throws -> JSONValue {
        let parser = JSONParser(limits: limits)
        if let contiguous = bytes.withContiguousStorageIfAvailable({ buffer in Result { try parser.parse(buffer) } }) {
            return try contiguous.get()
        }
        return try Array(bytes).withUnsafeBufferPointer { try parser.parse($0) }
    }

    /// Decodes a body. With a `Content-Type` the media type decides between step and problem;
    /// without one, a `type` that is an absolute URI marks a problem.
    public func decode(_ body: some Sequence<UInt8>, contentType: String? = nil) throws -> HaapiResponse {
        try decode(json: try parse(body), contentType: contentType)
    }

    /// Reads an already-parsed body as a step or a problem, by `contentType` or, without one, by its shape.
    public func decode(json: JSONValue, contentType: String? = nil) throws -> HaapiResponse {
        let cursor = try ObjectCursor(json, at: .root)
        let isProblem: Bool
        switch contentType.map(HaapiMediaType.essence(of:)) {
        case HaapiMediaType.problem?: isProblem = true
        case HaapiMediaType.representation?: isProblem = false
        default: isProblem = Self.looksLikeProblemType(try cursor.string("type"))
        }
        if isProblem { return .problem(try ProblemDecoding.problem(cursor)) }
        return .representation(try StepClassifier.classify(try RepresentationContent(cursor)))
    }

    /// Reads a body as a step; throws `HaapiDecodingError` when it is not one.
    public func decodeRepresentation(_ body: some Sequence<UInt8>) throws -> any HaapiRepresentation {
        let cursor = try ObjectCursor(try parse(body), at: .root)
        return try StepClassifier.classify(try RepresentationContent(cursor))
    }

    /// Reads a body as a problem; throws `HaapiDecodingError` when it is not one.
    public func decodeProblem(_ body: some Sequence<UInt8>) throws -> any ProblemRepresentation {
        try ProblemDecoding.problem(try ObjectCursor(try parse(body), at: .root))
    }

    /// Step types are plain tokens (`polling-step`); problem types are URIs (`https://…`, `urn:…`).
    static func looksLikeProblemType(_ type: String) -> Bool {
        guard let colon = type.firstIndex(of: ":") else { return false }
        let scheme = type[..<colon]
        return !scheme.isEmpty && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
    }
}
