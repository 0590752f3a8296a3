/* bcryptprimitives.dll for Wine 8, which has none.
 *
 * Rust's std (windows targets, 1.78 and later) imports ProcessPrng from bcryptprimitives.dll and
 * calls it for HashMap keys and the like; Wine gained that DLL only after 8.0, so there a Rust exe
 * fails to start (c0000135, exit code 53). This exports ProcessPrng alone, over RtlGenRandom
 * (advapi32's SystemFunction036). scripts/wine setup builds it with mingw and puts it into the
 * prefix's system32; a Wine with its own builtin bcryptprimitives keeps that one.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); /* RtlGenRandom */

/* Real Windows documents it as always returning TRUE; this returns FALSE if RtlGenRandom fails. */
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
