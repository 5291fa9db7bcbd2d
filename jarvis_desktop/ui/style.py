"""The window's look: one stylesheet, light and plain, readable at any platform style."""

STYLESHEET = """
QMainWindow, #central { background: #f4f5f7; }
#conversation, #conversationInner { background: #ffffff; border: none; }
#userBubble { background: #e8f0fe; border: 1px solid #c9dafc; border-radius: 10px; margin-left: 60px; }
#assistantBubble { background: #f6f7f9; border: 1px solid #e1e4e8; border-radius: 10px; margin-right: 60px; }
#errorBubble { background: #fdecea; border: 1px solid #f5c6c0; border-radius: 10px; margin-right: 60px; }
#who { color: #5f6670; font-size: 11px; font-weight: bold; }
#body { color: #1d2126; font-size: 14px; }
#turnStatus { color: #7a7f87; font-style: italic; font-size: 12px; }
#placeholder { color: #8a9099; font-size: 14px; padding: 30px; }
#banner { background: #fff8e1; border: 1px solid #f2d98c; border-radius: 6px; }
#banner QLabel { color: #4d3d00; }
#notice { background: #fdecea; border: 1px solid #f5c6c0; border-radius: 6px; }
#notice QLabel { color: #8a1f11; }
#chip { background: #eef1f5; border: 1px solid #cfd5dd; border-radius: 12px; }
#chip[state="checking"] { background: #f7f7f7; border: 1px dashed #b8bec6; }
#chipKind { color: #ffffff; background: #5f6b7a; border-radius: 6px; padding: 0 4px; font-size: 9px; font-weight: bold; }
#inputBox { background: #ffffff; border: 1px solid #cfd5dd; border-radius: 8px; padding: 4px; font-size: 14px; }
#micButton { border: 1px solid #cfd5dd; border-radius: 18px; background: #ffffff; font-size: 16px; }
#micButton:checked, #micButton[listening="true"] { background: #e53935; color: white; border-color: #c62828; }
#micButton:disabled { color: #b0b5bb; background: #f1f2f4; }
#sendButton { background: #1f6fd1; color: white; border-radius: 6px; padding: 6px 14px; font-weight: bold; }
#sendButton:disabled { background: #9dbbe6; }
#stopButton { background: #ffffff; color: #c0392b; border: 1px solid #e0b4ae; border-radius: 6px; padding: 6px 12px; }
#stopButton:disabled { color: #c9cdd2; border-color: #e3e5e8; }
#levelMeter { border: 1px solid #d5d9de; border-radius: 3px; background: #f1f2f4; }
#levelMeter::chunk { background: #2e7d32; border-radius: 2px; }
#history, #planPanel { background: #fbfbfc; }
#sessionList { border: 1px solid #e1e4e8; border-radius: 4px; background: #ffffff; }
#sessionList::item { padding: 5px 4px; border-bottom: 1px solid #f0f1f3; }
#sessionList::item:selected { background: #e8f0fe; color: #1d2126; }
#planSummary { color: #5f6670; }
#hint { color: #6b7280; font-size: 11px; }
#thumb { border: 1px solid #d5d9de; background: #fafafa; }
"""


def mic_icon(colour: str = "#37474f"):
    """A microphone drawn with QPainter: no icon files to ship, crisp at any size."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap

    icon = QIcon()
    for mode, c in ((QIcon.Mode.Normal, colour), (QIcon.Mode.Disabled, "#b0b5bb")):
        pix = QPixmap(64, 64)
        pix.fill(Qt.GlobalColor.transparent)
        p = QPainter(pix)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setBrush(QColor(c))
        p.setPen(Qt.PenStyle.NoPen)
        p.drawRoundedRect(QRectF(22, 6, 20, 34), 10, 10)
        pen = QPen(QColor(c), 4)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        p.setPen(pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawArc(QRectF(14, 16, 36, 34), 200 * 16, 140 * 16)
        p.drawLine(32, 50, 32, 58)
        p.drawLine(24, 58, 40, 58)
        p.end()
        icon.addPixmap(pix, mode)
    return icon
