"""Questions drawn over the chat: the frame, approval, confirm, forms, the model chooser."""
