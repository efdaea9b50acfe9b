@echo off
rem Installs TrustScreen Reviewer for the user running it, without admin
rem rights: the two programs into %LOCALAPPDATA%\Programs\TrustScreen
rem Reviewer, and a Start menu shortcut. Run it from the unpacked zip.
setlocal
set "dest=%LOCALAPPDATA%\Programs\TrustScreen Reviewer"
if not exist "%dest%\" mkdir "%dest%"
if not exist "%dest%\" goto failed
copy /y "%~dp0reviewer.exe" "%dest%\reviewer.exe" >nul
if errorlevel 1 goto failed
copy /y "%~dp0reviewer-pdf.exe" "%dest%\reviewer-pdf.exe" >nul
if errorlevel 1 goto failed
set "menu=%APPDATA%\Microsoft\Windows\Start Menu\Programs"
where powershell >nul 2>nul
if errorlevel 1 goto done
powershell -NoProfile -Command "$s=(New-Object -ComObject WScript.Shell).CreateShortcut('%menu%\TrustScreen Reviewer.lnk'); $s.TargetPath='%dest%\reviewer.exe'; $s.WorkingDirectory='%dest%'; $s.Save()"
:done
echo TrustScreen Reviewer is installed in "%dest%".
echo Start it from the Start menu, or run "%dest%\reviewer.exe" in a terminal.
exit /b 0
:failed
echo TrustScreen Reviewer could not be installed in "%dest%".
exit /b 1
