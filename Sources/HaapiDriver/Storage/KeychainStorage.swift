#if canImport(Security) && canImport(Darwin)
import Foundation
import Security

/// `Storage` in the Keychain: generic-password items under one service, never migrated to another device.
/// By default they are readable from the first unlock after a restart on, so a background refresh works
/// while the phone is locked; `.whenUnlocked` is stricter.
public final class KeychainStorage: Storage, Sendable {
    /// When the items can be read (`kSecAttrAccessible…ThisDeviceOnly`).
    public enum Accessibility: Sendable {
        /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`: the default; background refresh works.
        case afterFirstUnlock
        /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`: only while the device is unlocked.
        case whenUnlocked
        /// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`: only while unlocked, and only with a passcode set.
        case whenPasscodeSet

        var attribute: CFString {
            switch self {
            case .afterFirstUnlock: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            case .whenUnlocked: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
            case .whenPasscodeSet: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
            }
        }
    }

    public let service: String
    public let accessGroup: String?
    public let accessibility: Accessibility

    public init(
        service: String = "io.swift-haapi.storage", accessGroup: String? = nil,
        accessibility: Accessibility = .afterFirstUnlock
    ) {
        self.service = service
        self.accessGroup = accessGroup
        self.accessibility = accessibility
    }

    private func query(_ key: String) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: key,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    public func read(key: String) throws(StorageError) -> Data? {
        var request = query(key)
        request[kSecReturnData as String] = true
        request[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(request as CFDictionary, &result)
        switch status {
        case errSecSuccess: return result as? Data
        case errSecItemNotFound: return nil
        default: throw .unavailable("Keychain read failed (OSStatus \(status))")
        }
    }

    public func write(_ data: Data, key: String) throws(StorageError) {
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: accessibility.attribute,
        ]
        let status = SecItemUpdate(query(key) as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            let added = SecItemAdd(query(key).merging(attributes) { $1 } as CFDictionary, nil)
            guard added == errSecSuccess else { throw .unavailable("Keychain add failed (OSStatus \(added))") }
        } else if status != errSecSuccess {
            throw .unavailable("Keychain update failed (OSStatus \(status))")
        }
    }

    public func delete(key: String) throws(StorageError) {
        let status = SecItemDelete(query(key) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw .unavailable("Keychain delete failed (OSStatus \(status))")
        }
    }
}
#endif
