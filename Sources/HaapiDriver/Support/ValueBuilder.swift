/// A builder that is a value: each setter returns a changed copy, so `builder.setX(…)` on its own line is a
/// compiler warning (an unused result) instead of a setting silently lost, and a builder can be shared across
/// tasks as it is.
package protocol ValueBuilder: Sendable {}

extension ValueBuilder {
    /// A copy of the builder with `change` applied.
    package func with(_ change: (inout Self) -> Void) -> Self {
        var copy = self
        change(&copy)
        return copy
    }
}
