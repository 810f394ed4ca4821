"""Colour science for the colour tests, in numpy: sRGB <-> linear RGB, CIE XYZ (D65), CIELAB, CIEDE2000, and the
simulation of colour-vision deficiencies of Machado, Oliveira and Fernandes (2009).

Used by tests/test_figure_colours_and_text.py; checked there against published data (the CIEDE2000 test pairs of
Sharma, Wu and Dalal 2005).

References
----------
- IEC 61966-2-1 (sRGB): the transfer function and the primaries' matrix to XYZ, white point D65.
- CIE 15:2004 (CIELAB).
- G. Sharma, W. Wu, E. N. Dalal (2005), "The CIEDE2000 color-difference formula: implementation notes,
  supplementary test data, and mathematical observations", Color Research & Application 30(1), 21-30.
- G. M. Machado, M. M. Oliveira, L. A. F. Fernandes (2009), "A physiologically-based model for simulation of color
  vision deficiency", IEEE Transactions on Visualization and Computer Graphics 15(6), 1291-1298: the matrices for
  severity 1.0 (dichromacy), applied to linear RGB.
"""
import numpy as np

__all__ = [
    "DEFICIENCIES",
    "MACHADO_2009",
    "srgb_to_linear",
    "linear_to_srgb",
    "linear_rgb_to_xyz",
    "xyz_to_lab",
    "srgb_to_lab",
    "simulate",
    "ciede2000",
]

#: Linear RGB -> linear RGB as seen with each dichromacy (Machado et al. 2009, severity 1.0).
MACHADO_2009 = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779],
                            [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
#: The deficiencies simulated, in report order.
DEFICIENCIES = tuple(MACHADO_2009)

#: Linear sRGB -> XYZ (D65), IEC 61966-2-1.
_RGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805],
                        [0.2126, 0.7152, 0.0722],
                        [0.0193, 0.1192, 0.9505]])
#: The D65 white point of sRGB (Y = 1): the row sums of _RGB_TO_XYZ.
D65_WHITE = _RGB_TO_XYZ.sum(axis=1)


def srgb_to_linear(rgb):
    """sRGB values in [0, 1] (any shape (..., 3)) -> linear RGB."""
    rgb = np.asarray(rgb, dtype=float)
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(linear):
    """Linear RGB (..., 3) -> sRGB values in [0, 1] (clipped to the gamut first)."""
    linear = np.clip(np.asarray(linear, dtype=float), 0.0, 1.0)
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)


def linear_rgb_to_xyz(linear):
    """Linear sRGB (..., 3) -> CIE XYZ (..., 3), D65, Y of white = 1."""
    return np.asarray(linear, dtype=float) @ _RGB_TO_XYZ.T


def xyz_to_lab(xyz, white=D65_WHITE):
    """CIE XYZ (..., 3) -> CIELAB (L*, a*, b*) (..., 3) relative to ``white``."""
    t = np.asarray(xyz, dtype=float) / white
    delta = 6 / 29
    f = np.where(t > delta**3, np.cbrt(t), t / (3 * delta**2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def srgb_to_lab(rgb):
    """sRGB in [0, 1] (..., 3) -> CIELAB (..., 3), D65."""
    return xyz_to_lab(linear_rgb_to_xyz(srgb_to_linear(rgb)))


def simulate(rgb, deficiency):
    """sRGB colours (..., 3) as seen with ``deficiency`` ("protanopia", ...; None: unchanged), as sRGB in [0, 1].

    The matrix applies to linear RGB; the result is clipped to the displayable gamut.
    """
    rgb = np.asarray(rgb, dtype=float)
    if deficiency is None:
        return rgb
    return linear_to_srgb(srgb_to_linear(rgb) @ MACHADO_2009[deficiency].T)


def ciede2000(lab1, lab2, k_l=1.0, k_c=1.0, k_h=1.0):
    """The CIEDE2000 colour difference of CIELAB colours (..., 3) and (..., 3) (broadcast), as in Sharma et al. 2005."""
    lab1, lab2 = np.asarray(lab1, dtype=float), np.asarray(lab2, dtype=float)
    L1, a1, b1 = np.moveaxis(lab1, -1, 0)
    L2, a2, b2 = np.moveaxis(lab2, -1, 0)
    c_mean = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_mean**7 / (c_mean**7 + 25.0**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    # hue angles in degrees, 0 for a neutral colour (a' = b = 0)
    h1p = np.where((a1p == 0) & (b1 == 0), 0.0, np.degrees(np.arctan2(b1, a1p)) % 360)
    h2p = np.where((a2p == 0) & (b2 == 0), 0.0, np.degrees(np.arctan2(b2, a2p)) % 360)

    dLp = L2 - L1
    dCp = c2p - c1p
    both = c1p * c2p != 0
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(both, dh, 0.0)
    dHp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))

    Lp_mean = (L1 + L2) / 2
    Cp_mean = (c1p + c2p) / 2
    h_sum = h1p + h2p
    hp_mean = np.where(
        ~both, h_sum,
        np.where(np.abs(h1p - h2p) <= 180, h_sum / 2, np.where(h_sum < 360, (h_sum + 360) / 2, (h_sum - 360) / 2)),
    )
    t = (1 - 0.17 * np.cos(np.radians(hp_mean - 30)) + 0.24 * np.cos(np.radians(2 * hp_mean))
         + 0.32 * np.cos(np.radians(3 * hp_mean + 6)) - 0.20 * np.cos(np.radians(4 * hp_mean - 63)))
    d_theta = 30 * np.exp(-(((hp_mean - 275) / 25) ** 2))
    r_c = 2 * np.sqrt(Cp_mean**7 / (Cp_mean**7 + 25.0**7))
    s_l = 1 + 0.015 * (Lp_mean - 50) ** 2 / np.sqrt(20 + (Lp_mean - 50) ** 2)
    s_c = 1 + 0.045 * Cp_mean
    s_h = 1 + 0.015 * Cp_mean * t
    r_t = -np.sin(np.radians(2 * d_theta)) * r_c
    dl, dc, dhh = dLp / (k_l * s_l), dCp / (k_c * s_c), dHp / (k_h * s_h)
    return np.sqrt(dl**2 + dc**2 + dhh**2 + r_t * dc * dhh)
