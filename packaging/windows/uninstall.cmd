@echo off
rem Removes what install.cmd put in place. Run "reviewer wipe" first to
rem remove the cache, the preferences and the token too.
setlocal
set "dest=%LOCALAPPDATA%\Programs\TrustScreen Reviewer"
del /q "%APPDATA%\Microsoft\Windows\Start Menu\Programs\TrustScreen Reviewer.lnk" 2>nul
del /q "%dest%\reviewer.exe" "%dest%\reviewer-pdf.exe" 2>nul
rmdir "%dest%" 2>nul
echo TrustScreen Reviewer is removed.
