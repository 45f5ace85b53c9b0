#pragma once

#include <QDialog>

#include <functional>

class QDialogButtonBox;
class QLabel;
class QSpinBox;
class QTimer;

namespace ClusterDeck::Ui {

// "Scale Role…" on a role row: a spin box bounded by the role's min and max, and a preview of
// what the new count does (the new kernels and the hosts placement would choose, or why not).
class ScaleRoleDialog : public QDialog
{
    Q_OBJECT

public:
    // Asked for the preview of a count; answers through the callback (any thread's result
    // delivered on the GUI thread).
    using Preview = std::function<void(int count, std::function<void(bool ok, const QString &)>)>;

    ScaleRoleDialog(const QString &sessionName, const QString &role, int current, int min, int max,
                    Preview preview, QWidget *parent = nullptr);

    QSpinBox *countBox() const { return m_count; }
    QLabel *previewLabel() const { return m_preview; }
    int count() const;

private:
    void requestPreview();

    QSpinBox *m_count;
    QLabel *m_preview;
    QDialogButtonBox *m_buttons;
    QTimer *m_debounce;
    Preview m_previewFn;
    int m_current;
    int m_asked = 0; // the newest request, so late answers of older counts are dropped
};

} // namespace ClusterDeck::Ui
