#pragma once

#include "store/records.h"

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace ClusterDeck::Ui {

class ConsoleController;

// Registers a Docker host: endpoint, TLS files (with file pickers), public address, labels.
// Test Connection asks the daemon in the background; OK registers through the HostRegistry
// (which tests the connection again) and shows the error in full when it fails.
class AddHostDialog : public QDialog
{
    Q_OBJECT

public:
    explicit AddHostDialog(ConsoleController *controller, QWidget *parent = nullptr);

    HostRecord host() const;
    // "Problems: …" or empty: what the registry's pure checks say about the form.
    QString validationError() const;
    QLabel *resultLabel() const { return m_result; }

public Q_SLOTS:
    void testConnection();
    void accept() override;

private:
    QLineEdit *fileField(const QString &name);
    void setBusy(bool busy, const QString &message);

    ConsoleController *m_controller;
    QLineEdit *m_name;
    QLineEdit *m_endpoint;
    QLineEdit *m_ca;
    QLineEdit *m_cert;
    QLineEdit *m_key;
    QLineEdit *m_address;
    QLineEdit *m_labels;
    QLabel *m_result;
    QPushButton *m_test;
    QDialogButtonBox *m_buttons;
};

} // namespace ClusterDeck::Ui
