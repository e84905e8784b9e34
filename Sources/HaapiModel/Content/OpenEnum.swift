/// A string-valued enum that must accept values this SDK does not know yet.
///
/// Conformers list their known cases; any other string is kept as `other(value:)`, so a newer
/// server never breaks decoding and the original value is never lost.
public protocol OpenEnum: RawRepresentable, Sendable, Hashable, CustomStringConvertible where RawValue == String {
    /// Every named case, the ones a raw value is matched against.
    static var knownCases: [Self] { get }
    /// The case for a raw value this SDK does not know.
    static func other(value: String) -> Self
}

extension OpenEnum {
    public init(rawValue: String) {
        self = Self.knownCases.first { $0.rawValue == rawValue } ?? Self.other(value: rawValue)
    }

    /// Whether the value is one this SDK knows by name.
    public var isKnown: Bool { Self.knownCases.contains(self) }

    public var description: String { rawValue }
}
