#include "apptheme.h"

#include <QApplication>
#include <QLoggingCategory>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

Q_LOGGING_CATEGORY(lcTheme, "clusterdeck.ui.theme")

namespace ClusterDeck::Ui {

namespace {

const auto kSettingsKey = QStringLiteral("appearance/theme");

// What the desktop gave the application before any choice was applied.
struct DesktopLook
{
    bool captured = false;
    QString styleName;
    QPalette palette;
};

DesktopLook &desktopLook()
{
    static DesktopLook look;
    if (!look.captured && qApp) {
        look.captured = true;
        look.styleName = QApplication::style()->name();
        look.palette = QApplication::palette();
    }
    return look;
}

AppTheme::Choice g_current = AppTheme::Choice::System;

void setLook(const QString &styleName, const QPalette &palette)
{
    if (QApplication::style()->name().compare(styleName, Qt::CaseInsensitive) != 0) {
        if (QStyle *style = QStyleFactory::create(styleName))
            QApplication::setStyle(style);
    }
    QApplication::setPalette(palette);
}

} // namespace

QString AppTheme::toString(Choice choice)
{
    switch (choice) {
    case Choice::System:
        return QStringLiteral("system");
    case Choice::Light:
        return QStringLiteral("light");
    case Choice::Dark:
        return QStringLiteral("dark");
    }
    return QStringLiteral("system");
}

std::optional<AppTheme::Choice> AppTheme::fromString(const QString &text)
{
    for (Choice c : {Choice::System, Choice::Light, Choice::Dark}) {
        if (text.trimmed().compare(toString(c), Qt::CaseInsensitive) == 0)
            return c;
    }
    return std::nullopt;
}

AppTheme::Choice AppTheme::savedChoice()
{
    const QString env = qEnvironmentVariable("CLUSTERDECK_THEME");
    if (!env.isEmpty()) {
        if (const auto c = fromString(env))
            return *c;
        qCWarning(lcTheme) << "CLUSTERDECK_THEME should be system, light or dark, not" << env;
    }
    return fromString(QSettings().value(kSettingsKey).toString()).value_or(Choice::System);
}

void AppTheme::saveChoice(Choice choice)
{
    QSettings().setValue(kSettingsKey, toString(choice));
}

bool AppTheme::isDark(const QPalette &palette)
{
    const QColor window = palette.color(QPalette::Active, QPalette::Window);
    return window.lightness() < 128;
}

bool AppTheme::desktopIsDark()
{
    if (qEnvironmentVariable("GTK_THEME").endsWith(QLatin1String(":dark"), Qt::CaseInsensitive))
        return true;
    return isDark(desktopLook().palette);
}

QPalette AppTheme::darkPalette()
{
    const QColor window(0x2d, 0x2f, 0x33);
    const QColor base(0x1f, 0x21, 0x24);
    const QColor button(0x36, 0x39, 0x3e);
    const QColor text(0xe4, 0xe6, 0xe8);
    const QColor disabled(0x80, 0x85, 0x8c);
    const QColor highlight(0x2f, 0x6f, 0xcf);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x27, 0x29, 0x2d));
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3d, 0x42));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Light, button.lighter(140));
    p.setColor(QPalette::Midlight, button.lighter(120));
    p.setColor(QPalette::Mid, button.darker(130));
    p.setColor(QPalette::Dark, button.darker(160));
    p.setColor(QPalette::Shadow, QColor(0x0c, 0x0d, 0x0e));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb0, 0xff));
    p.setColor(QPalette::LinkVisited, QColor(0xb3, 0x8c, 0xff));
    for (QPalette::ColorRole role :
         {QPalette::WindowText, QPalette::Text, QPalette::ButtonText, QPalette::HighlightedText})
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x4a, 0x4d, 0x52));
    p.setColor(QPalette::Disabled, QPalette::Base, window);
    return p;
}

void AppTheme::apply(Choice choice)
{
    const DesktopLook &desktop = desktopLook();
    const bool dark = choice == Choice::Dark || (choice == Choice::System && desktopIsDark());
    if (dark) {
        setLook(QStringLiteral("Fusion"), darkPalette());
    } else if (choice == Choice::Light && isDark(desktop.palette)) {
        // The desktop is dark and the admin wants light: Fusion's own light palette.
        QStyle *fusion = QStyleFactory::create(QStringLiteral("Fusion"));
        const QPalette light = fusion ? fusion->standardPalette() : QPalette();
        delete fusion;
        setLook(QStringLiteral("Fusion"), light);
    } else {
        setLook(desktop.styleName, desktop.palette);
    }
    g_current = choice;
    qCDebug(lcTheme) << "theme" << toString(choice) << (dark ? "(dark)" : "(light)");
}

AppTheme::Choice AppTheme::current()
{
    return g_current;
}

} // namespace ClusterDeck::Ui
