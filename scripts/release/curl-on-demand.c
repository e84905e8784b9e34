// libcurl on demand, for scripts/release.sh: the 23 functions FoundationNetworking calls, each loading the
// real libcurl (libcurl.so.4, with dlopen) the first time any of them is called. Linked statically in place
// of -lcurl, so `haapi` starts without libcurl and the two dozen libraries it brings (OpenSSL, GnuTLS,
// Kerberos, LDAP, ...: 5.4 MiB resident), which `haapi serve` never uses; a command that does use
// URLSession loads them then. docs/BENCHMARKS.md, "Memory", has the figures.
//
// The prototypes are libcurl's (curl/curl.h, curl/multi.h, curl/urlapi.h), with its handles as void * and its
// enums as int. The variadic ones take one argument after the option, a long, a pointer, a function pointer
// or a curl_off_t: all passed as one 64-bit integer on the platforms we build for, so it is forwarded as one.
#include <dlfcn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static void *resolve(const char *name) {
    static void *_Atomic library;
    void *handle = atomic_load(&library);
    if (handle == NULL) {
        handle = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            fprintf(stderr, "haapi: cannot load libcurl.so.4 (%s)\n", dlerror());
            abort();
        }
        atomic_store(&library, handle);
    }
    void *function = dlsym(handle, name);
    if (function == NULL) {
        fprintf(stderr, "haapi: libcurl.so.4 has no %s\n", name);
        abort();
    }
    return function;
}

// The real function `name` as `function_name`, of type `name_type`, looked up once (two threads may both
// look it up: they find the same address).
#define REAL(name)                                                       \
    static void *_Atomic real_##name;                                    \
    void *address_##name = atomic_load(&real_##name);                    \
    if (address_##name == NULL) {                                        \
        address_##name = resolve(#name);                                 \
        atomic_store(&real_##name, address_##name);                      \
    }                                                                    \
    name##_type function_##name = (name##_type)address_##name;

typedef long long offset_or_word;

typedef void (*curl_easy_cleanup_type)(void *);
void curl_easy_cleanup(void *curl) {
    REAL(curl_easy_cleanup)
    function_curl_easy_cleanup(curl);
}

typedef int (*curl_easy_getinfo_type)(void *, int, ...);
int curl_easy_getinfo(void *curl, int info, ...) {
    REAL(curl_easy_getinfo)
    va_list arguments;
    va_start(arguments, info);
    void *result = va_arg(arguments, void *);
    va_end(arguments);
    return function_curl_easy_getinfo(curl, info, result);
}

typedef void *(*curl_easy_init_type)(void);
void *curl_easy_init(void) {
    REAL(curl_easy_init)
    return function_curl_easy_init();
}

typedef int (*curl_easy_pause_type)(void *, int);
int curl_easy_pause(void *curl, int bitmask) {
    REAL(curl_easy_pause)
    return function_curl_easy_pause(curl, bitmask);
}

typedef int (*curl_easy_setopt_type)(void *, int, ...);
int curl_easy_setopt(void *curl, int option, ...) {
    REAL(curl_easy_setopt)
    va_list arguments;
    va_start(arguments, option);
    offset_or_word value = va_arg(arguments, offset_or_word);
    va_end(arguments);
    return function_curl_easy_setopt(curl, option, value);
}

typedef const char *(*curl_easy_strerror_type)(int);
const char *curl_easy_strerror(int code) {
    REAL(curl_easy_strerror)
    return function_curl_easy_strerror(code);
}

typedef void (*curl_free_type)(void *);
void curl_free(void *pointer) {
    REAL(curl_free)
    function_curl_free(pointer);
}

typedef int (*curl_global_init_type)(long);
int curl_global_init(long flags) {
    REAL(curl_global_init)
    return function_curl_global_init(flags);
}

typedef int (*curl_multi_add_handle_type)(void *, void *);
int curl_multi_add_handle(void *multi, void *curl) {
    REAL(curl_multi_add_handle)
    return function_curl_multi_add_handle(multi, curl);
}

typedef int (*curl_multi_assign_type)(void *, int, void *);
int curl_multi_assign(void *multi, int socket, void *pointer) {
    REAL(curl_multi_assign)
    return function_curl_multi_assign(multi, socket, pointer);
}

typedef int (*curl_multi_cleanup_type)(void *);
int curl_multi_cleanup(void *multi) {
    REAL(curl_multi_cleanup)
    return function_curl_multi_cleanup(multi);
}

typedef void *(*curl_multi_info_read_type)(void *, int *);
void *curl_multi_info_read(void *multi, int *queued) {
    REAL(curl_multi_info_read)
    return function_curl_multi_info_read(multi, queued);
}

typedef void *(*curl_multi_init_type)(void);
void *curl_multi_init(void) {
    REAL(curl_multi_init)
    return function_curl_multi_init();
}

typedef int (*curl_multi_remove_handle_type)(void *, void *);
int curl_multi_remove_handle(void *multi, void *curl) {
    REAL(curl_multi_remove_handle)
    return function_curl_multi_remove_handle(multi, curl);
}

typedef int (*curl_multi_setopt_type)(void *, int, ...);
int curl_multi_setopt(void *multi, int option, ...) {
    REAL(curl_multi_setopt)
    va_list arguments;
    va_start(arguments, option);
    offset_or_word value = va_arg(arguments, offset_or_word);
    va_end(arguments);
    return function_curl_multi_setopt(multi, option, value);
}

typedef int (*curl_multi_socket_action_type)(void *, int, int, int *);
int curl_multi_socket_action(void *multi, int socket, int events, int *running) {
    REAL(curl_multi_socket_action)
    return function_curl_multi_socket_action(multi, socket, events, running);
}

typedef void *(*curl_slist_append_type)(void *, const char *);
void *curl_slist_append(void *list, const char *text) {
    REAL(curl_slist_append)
    return function_curl_slist_append(list, text);
}

typedef void (*curl_slist_free_all_type)(void *);
void curl_slist_free_all(void *list) {
    REAL(curl_slist_free_all)
    function_curl_slist_free_all(list);
}

typedef void *(*curl_url_type)(void);
void *curl_url(void) {
    REAL(curl_url)
    return function_curl_url();
}

typedef int (*curl_url_get_type)(const void *, int, char **, unsigned int);
int curl_url_get(const void *url, int part, char **value, unsigned int flags) {
    REAL(curl_url_get)
    return function_curl_url_get(url, part, value, flags);
}

typedef int (*curl_url_set_type)(void *, int, const char *, unsigned int);
int curl_url_set(void *url, int part, const char *value, unsigned int flags) {
    REAL(curl_url_set)
    return function_curl_url_set(url, part, value, flags);
}

typedef char *(*curl_version_type)(void);
char *curl_version(void) {
    REAL(curl_version)
    return function_curl_version();
}

typedef void *(*curl_version_info_type)(int);
void *curl_version_info(int age) {
    REAL(curl_version_info)
    return function_curl_version_info(age);
}
