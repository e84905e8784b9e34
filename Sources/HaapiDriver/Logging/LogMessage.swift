/// A log message whose secret parts are marked where they are written: `"token \(sensitive: token)"`.
/// They are replaced by `*****` unless `HaapiLogger.isSensitiveValueMasked` is turned off.
public struct LogMessage: ExpressibleByStringInterpolation, Sendable {
    enum Segment: Sendable {
        case plain(String)
        case sensitive(String)
    }

    let segments: [Segment]

    public init(stringLiteral value: String) {
        segments = [.plain(value)]
    }

    public init(stringInterpolation: Interpolation) {
        segments = stringInterpolation.segments
    }

    /// Builds a message; interpolated values appear as they are unless masked.
    public struct Interpolation: StringInterpolationProtocol {
        var segments: [Segment] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) {
            segments.append(.plain(literal))
        }

        /// Appends a value's description.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            segments.append(.plain(value.description))
        }

        /// A value that masks itself (`Masking`): always sensitive.
        public mutating func appendInterpolation(_ value: some Masking) {
            segments.append(.sensitive(value.unmaskedDescription))
        }

        /// A secret: tokens, codes, passwords, proofs, nonces, keys, or anything derived from them.
        public mutating func appendInterpolation(sensitive value: some CustomStringConvertible) {
            segments.append(.sensitive(value.description))
        }
    }

    var containsSensitiveValue: Bool {
        segments.contains { if case .sensitive = $0 { true } else { false } }
    }

    func rendered(masked: Bool) -> String {
        segments.map { segment in
            switch segment {
            case .plain(let text): text
            case .sensitive(let text): masked ? HaapiLogger.mask : text
            }
        }.joined()
    }
}
