#pragma once

#include <QPalette>
#include <QString>

#include <optional>

namespace ClusterDeck::Ui {

// The console's colours: the desktop's (System), or Fusion with a light or a dark palette. Qt 6.4
// has no QStyleHints::colorScheme(), so "is the desktop dark" is read from the platform palette's
// window lightness (and GTK_THEME's ":dark" variant, which the GTK platform theme does not apply
// to the palette). The choice is kept in QSettings ("appearance/theme"); CLUSTERDECK_THEME
// (system, light, dark) overrides it for one run (screenshots, a quick try).
class AppTheme
{
public:
    enum class Choice { System, Light, Dark };

    static QString toString(Choice choice);
    static std::optional<Choice> fromString(const QString &text);

    // CLUSTERDECK_THEME if set and valid, else the saved choice, else System.
    static Choice savedChoice();
    static void saveChoice(Choice choice);

    // Sets the application's style and palette. The first call remembers the desktop's own
    // style and palette, so System can return to them later.
    static void apply(Choice choice);
    static Choice current();

    static bool desktopIsDark();
    static bool isDark(const QPalette &palette);
    static QPalette darkPalette();
};

} // namespace ClusterDeck::Ui
