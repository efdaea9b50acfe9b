package ui

import (
	"fyne.io/fyne/v2"
)

// desktopShortcut is Ctrl+<key>.
type desktopShortcut struct{ key fyne.KeyName }

func (s *desktopShortcut) Key() fyne.KeyName     { return s.key }
func (s *desktopShortcut) Mod() fyne.KeyModifier { return fyne.KeyModifierShortcutDefault }
func (s *desktopShortcut) ShortcutName() string  { return "Ctrl+" + string(s.key) }
