/* For the Wine test prefix only (scripts/windows-check.sh), never shipped:
 * Go's runtime (since Go 1.22) loads bcryptprimitives.dll for ProcessPrng,
 * which Windows 10 and later have and Wine 8.0 lacks. This stand-in
 * answers from BCryptGenRandom, which Wine has. */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE d, SIZE_T n) {
	return BCryptGenRandom(NULL, d, (ULONG)n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) == 0;
}
