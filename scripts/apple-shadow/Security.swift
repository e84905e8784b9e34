// Stand-in declarations of the Security (Keychain) API KeychainStorage calls, as Apple documents them, for
// scripts/apple-shadow.sh. Not an SDK: only the names and types our code uses; CoreFoundation's types are
// their toll-free Foundation counterparts here, and the constants are `nonisolated(unsafe)` as imported C globals are
// left unchecked.
import Foundation

typealias CFString = NSString
typealias CFDictionary = NSDictionary
typealias CFTypeRef = AnyObject
typealias OSStatus = Int32

let errSecSuccess: OSStatus = 0
let errSecItemNotFound: OSStatus = -25300
nonisolated(unsafe) let kSecClass: CFString = "class"
nonisolated(unsafe) let kSecClassGenericPassword: CFString = "genp"
nonisolated(unsafe) let kSecAttrService: CFString = "svce"
nonisolated(unsafe) let kSecAttrAccount: CFString = "acct"
nonisolated(unsafe) let kSecAttrAccessGroup: CFString = "agrp"
nonisolated(unsafe) let kSecAttrAccessible: CFString = "pdmn"
nonisolated(unsafe) let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
nonisolated(unsafe) let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
nonisolated(unsafe) let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
nonisolated(unsafe) let kSecReturnData: CFString = "r_Data"
nonisolated(unsafe) let kSecMatchLimit: CFString = "m_Limit"
nonisolated(unsafe) let kSecMatchLimitOne: CFString = "m_LimitOne"
nonisolated(unsafe) let kSecValueData: CFString = "v_Data"

func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { 0 }
func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { 0 }
func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus { 0 }
func SecItemDelete(_ query: CFDictionary) -> OSStatus { 0 }
