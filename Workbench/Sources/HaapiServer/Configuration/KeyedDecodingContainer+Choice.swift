extension KeyedDecodingContainer {
    /// One of `T`'s cases, read from its text; any other text is an error at `key` that lists the cases
    /// (`unknown field type "slider"; one of text, password, …`).
    func decodeChoice<T: RawRepresentable & CaseIterable>(
        _ type: T.Type, forKey key: Key, named what: String
    ) throws
        -> T where T.RawValue == String
    {
        let text = try decode(String.self, forKey: key)
        guard let value = T(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription:
                    "unknown \(what) \"\(text)\"; one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }
}
