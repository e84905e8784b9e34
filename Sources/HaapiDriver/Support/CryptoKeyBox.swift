/// Holds a CryptoKit value (a key, a hash state) in a type that must be `Sendable`.
///
/// CryptoKit's keys and hash functions are immutable values or copy-on-write structs whose methods do not
/// mutate shared state, so using one from several threads is safe; swift-crypto declares them `Sendable`,
/// and so does Apple's CryptoKit from the iOS 18.4 / macOS 15.4 SDKs (Xcode 16.3). The SDKs of Xcode 16.0
/// to 16.2 do not, and refuse them as stored properties of `Sendable` types. The box states the conformance
/// once, here, instead of relying on the SDK's: it adds no mutability, only a `let`.
///
/// Only for CryptoKit and swift-crypto values: anything with mutable shared state must not go in a box.
@_spi(Tooling) public struct CryptoKeyBox<Value>: @unchecked Sendable {
    /// The value.
    @_spi(Tooling) public let value: Value

    /// Boxes `value`.
    @_spi(Tooling) public init(_ value: Value) {
        self.value = value
    }
}
