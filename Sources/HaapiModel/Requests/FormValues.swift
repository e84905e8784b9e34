import Foundation

/// Form values an app collects as `Any` (the seeds' `[String: Any]` dictionaries), made `Sendable` before they
/// cross to the task that sends the request.
@_spi(Tooling) public enum FormValues {
    /// A value of a type a form cannot carry; request building refuses it with its type's name.
    @_spi(Tooling) public struct Unsupported: Sendable {
        @_spi(Tooling) public let typeName: String
    }

    @_spi(Tooling) public static func sendable(_ parameters: [String: Any]) -> [String: any Sendable] {
        parameters.mapValues(sendable)
    }

    static func sendable(_ value: Any) -> any Sendable {
        switch value {
        // Bool before the numbers: on Apple platforms a boolean may arrive as an NSNumber that also casts to Int.
        case let flag as Bool: return flag
        case let text as String: return text
        case let text as Substring: return String(text)
        case let number as Int: return number
        case let number as Double: return number
        case let number as Float: return Double(number)
        case let json as JSONValue: return json
        case let object as [String: String]: return object
        case let object as [String: JSONValue]: return object
        default: return Unsupported(typeName: String(describing: type(of: value)))
        }
    }
}
